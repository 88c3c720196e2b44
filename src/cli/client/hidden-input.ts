// Reading a secret at a terminal without showing it: the terminal is put in raw mode (no echo)
// for the one answer, and the keys are interpreted here: Enter ends it, Backspace erases, Ctrl-C
// cancels, Ctrl-U clears. Nothing of what is typed is written back, not even as asterisks.

export interface HiddenState {
  text: string;
  done: boolean;
  cancelled: boolean;
}

/** What a chunk of typed keys makes of the answer so far (pure, so it is tested without a terminal). */
export function applyKeys(state: HiddenState, chunk: string): HiddenState {
  let { text } = state;
  for (const char of chunk) {
    if (char === "\r" || char === "\n" || char === "\u0004") return { text, done: true, cancelled: false };
    if (char === "\u0003") return { text: "", done: true, cancelled: true };
    if (char === "\u007f" || char === "\b") text = [...text].slice(0, -1).join("");
    else if (char === "\u0015") text = "";
    else if (char >= " ") text += char;
  }
  return { text, done: false, cancelled: false };
}

type TtyInput = NodeJS.ReadStream & { setRawMode(mode: boolean): unknown };

/**
 * One answer from the terminal with echo off; undefined when Ctrl-C cancelled it. The prompt is
 * written only once echo is off, so nothing typed in answer to it can be echoed.
 */
export function readHidden(input: TtyInput, output: NodeJS.WritableStream, prompt: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    let state: HiddenState = { text: "", done: false, cancelled: false };
    const onData = (chunk: Buffer | string) => {
      state = applyKeys(state, chunk.toString());
      if (!state.done) return;
      input.off("data", onData);
      input.setRawMode(false);
      input.pause();
      output.write("\n"); // the Enter the terminal did not echo
      resolve(state.cancelled ? undefined : state.text);
    };
    input.setRawMode(true);
    output.write(prompt);
    input.on("data", onData);
    input.resume();
  });
}

/** One visible line from the terminal (cooked mode: the terminal echoes and edits it). */
export function readLine(input: NodeJS.ReadStream): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = "";
    const finish = (line: string | undefined) => {
      input.off("data", onData);
      input.off("end", onEnd);
      input.pause();
      resolve(line);
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      const end = text.indexOf("\n");
      if (end >= 0) finish(text.slice(0, end).replace(/\r$/, ""));
    };
    const onEnd = () => finish(text === "" ? undefined : text);
    input.on("data", onData);
    input.on("end", onEnd);
    input.resume();
  });
}
