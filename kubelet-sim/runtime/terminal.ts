// A simulated terminal (what `tty: true` gives a container or an exec): the
// client's terminal is raw, so keystrokes arrive one by one and the terminal
// does the line discipline a pty would: echo, backspace, Ctrl-C discards the
// line, Ctrl-D on an empty line is end of file, Enter hands the line to the
// reader; and on output "\n" becomes "\r\n" (onlcr). stdout and stderr share it.
import type { StdinStream } from './stdin-pipe.ts';

/** See the file comment. */
export class Terminal implements StdinStream {
  readonly tty = true;
  private line = '';
  private readonly ready: string[] = [];
  private eof = false;
  /** Bytes of an escape sequence (arrow keys) still to swallow. */
  private inEscape = false;

  constructor(
    private readonly input: StdinStream,
    private readonly write: (text: string) => void,
  ) {}

  /** Writes program output to the terminal. */
  out = (text: string): void => {
    this.write(text.replace(/\r?\n/g, '\r\n'));
  };

  async read(signal?: AbortSignal): Promise<string | null> {
    while (!this.ready.length && !this.eof) {
      const chunk = await this.input.read(signal);
      if (chunk === null) {
        // The client went away mid-line: the line is lost, as with a hung-up pty.
        this.eof = true;
        break;
      }
      this.cook(chunk);
    }
    return this.ready.shift() ?? null;
  }

  private cook(chunk: string): void {
    for (const ch of chunk) {
      if (this.inEscape) {
        // CSI sequences end with a letter or ~; a lone ESC+[ char is swallowed whole.
        if (/[A-Za-z~]/.test(ch)) this.inEscape = false;
        continue;
      }
      if (ch === '\x1b') this.inEscape = true;
      else if (ch === '\r' || ch === '\n') {
        this.write('\r\n');
        this.ready.push(this.line + '\n');
        this.line = '';
      } else if (ch === '\x7f' || ch === '\b') {
        if (this.line) {
          this.line = [...this.line].slice(0, -1).join('');
          this.write('\b \b');
        }
      } else if (ch === '\x03') {
        this.write('^C\r\n');
        this.line = '';
        this.ready.push('\n');
      } else if (ch === '\x04') {
        if (this.line === '') {
          this.eof = true;
          return;
        }
        this.ready.push(this.line);
        this.line = '';
      } else if (ch >= ' ' || ch === '\t') {
        this.line += ch;
        this.write(ch);
      }
    }
  }
}
