// The code editor for components: CodeMirror 6 with JavaScript highlighting.
//
// It lives in a shadow root: there CodeMirror's style module installs its styles as a
// constructed stylesheet, which the Content-Security-Policy does not govern, where in the
// document itself it would add a <style> element that `style-src 'self'` refuses.
import { basicSetup, EditorView } from "codemirror";
import { javascript } from "@codemirror/lang-javascript";

export interface CodeEditor {
  element: HTMLElement;
  value(): string;
}

const theme = EditorView.theme({
  "&": { maxHeight: "28rem", minHeight: "12rem", backgroundColor: "#fff" },
  ".cm-scroller": { overflow: "auto" },
});

export function codeEditor(initial: string, label: string): CodeEditor {
  const element = document.createElement("div");
  element.className = "editor";
  const view = new EditorView({
    doc: initial,
    parent: element.attachShadow({ mode: "open" }),
    extensions: [basicSetup, javascript(), theme, EditorView.contentAttributes.of({ "aria-label": label })],
  });
  return { element, value: () => view.state.doc.toString() };
}
