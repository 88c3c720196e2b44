// The code editor for components: CodeMirror 6 with JavaScript highlighting.
//
// It lives in a shadow root: there CodeMirror's style module installs its styles as a
// constructed stylesheet, which the Content-Security-Policy does not govern, where in the
// document itself it would add a <style> element that `style-src 'self'` refuses.
//
// Tab is not bound (basicSetup leaves it out), so the keyboard moves in and out of the editor
// as through any other field; Ctrl-] and Ctrl-[ indent and outdent.
import { basicSetup, EditorView } from "codemirror";
import { javascript } from "@codemirror/lang-javascript";
import { ensureSyntaxTree } from "@codemirror/language";
import { setDiagnostics } from "@codemirror/lint";

export interface CodeEditor {
  element: HTMLElement;
  value(): string;
  /** Marks a syntax error at a 1-based line (the whole line), scrolls to it and puts the cursor there. */
  markError(line: number, message: string): void;
  clearErrors(): void;
  /** The 1-based line of the first syntax error JavaScript's grammar finds, if any. */
  firstErrorLine(): number | undefined;
}

const theme = EditorView.theme({
  "&": { maxHeight: "28rem", minHeight: "12rem", backgroundColor: "#fff" },
  ".cm-scroller": { overflow: "auto" },
  "&.cm-focused": { outline: "3px solid #2f6fde", outlineOffset: "1px" },
  // The lint package draws its squiggle as a data: image, which the CSP's img-src refuses.
  ".cm-lintRange-error": { backgroundImage: "none", textDecoration: "underline wavy #d11", textDecorationSkipInk: "none" },
  ".cm-lintRange-warning, .cm-lintRange-info, .cm-lintRange-hint": { backgroundImage: "none" },
});

export function codeEditor(initial: string, label: string): CodeEditor {
  const element = document.createElement("div");
  element.className = "editor";
  const view = new EditorView({
    doc: initial,
    parent: element.attachShadow({ mode: "open" }),
    extensions: [basicSetup, javascript(), theme, EditorView.contentAttributes.of({ "aria-label": label, "aria-multiline": "true" })],
  });
  return {
    element,
    value: () => view.state.doc.toString(),
    markError(line, message) {
      const doc = view.state.doc;
      const at = doc.line(Math.min(Math.max(1, line), doc.lines));
      view.dispatch(setDiagnostics(view.state, [{ from: at.from, to: at.to, severity: "error", message }]));
      view.dispatch({ selection: { anchor: at.from }, effects: EditorView.scrollIntoView(at.from, { y: "center" }) });
    },
    clearErrors() {
      view.dispatch(setDiagnostics(view.state, []));
    },
    firstErrorLine() {
      const tree = ensureSyntaxTree(view.state, view.state.doc.length, 2000);
      let at: number | undefined;
      tree?.iterate({
        enter: (node) => {
          if (at !== undefined) return false;
          if (node.type.isError) at = node.from;
          return undefined;
        },
      });
      return at === undefined ? undefined : view.state.doc.lineAt(at).number;
    },
  };
}

/** The line a refusal names ("…:12:5", "line 12"), if it says one. */
export function lineInMessage(message: string): number | undefined {
  const found = /(?:^|[\s(:])(?:line\s+)?(\d+):(\d+)\b/i.exec(message) ?? /\bline\s+(\d+)\b/i.exec(message);
  const line = Number(found?.[1]);
  return Number.isInteger(line) && line > 0 ? line : undefined;
}
