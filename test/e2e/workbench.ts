/**
 * Drives the VS Code workbench of code-server with playwright-core for end-to-end (UI) tests.
 * The extension is installed the way a user's is (the repo symlinked into the extensions dir; no
 * smoke-test driver), so the page behaves like a normal window: toasts show, no development host.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BrowserContext, FrameLocator, Locator, Page } from 'playwright-core';
import {
  CodeServer,
  installExtensionUnderTest,
  launchChromium,
  repoRoot,
  startCodeServer,
  workbenchUrl,
} from '../vscode/codeServer';

const SCREENSHOT_DIR = path.join(repoRoot, 'test-results');
/** The first load parses a 19 MB workbench bundle; a busy 2-core machine needs a long time for it. */
const WORKBENCH_TIMEOUT_MS = 90_000;
const UI_TIMEOUT_MS = 30_000;
/** Covers activation, the language server starting and the profile loading. */
const LENS_TIMEOUT_MS = 60_000;

/** What the extension drew on one visible line of the active editor. */
export interface LineDecoration {
  /** 1-based line number. */
  line: number;
  /** Computed background colours of whole-line decorations, e.g. `rgba(255, 106, 0, 0.25)`. */
  backgrounds: string[];
  /** Texts of `after` decorations (CSS ::after content, so not in the DOM text). */
  afterTexts: string[];
}

/** A CodeLens and the line it belongs to. */
export interface LensLine {
  /** 1-based line number. */
  line: number;
  text: string;
  /** Position among the editor's lens widgets in the page, for clicking it. */
  index: number;
}

export class Workbench {
  private constructor(
    readonly page: Page,
    private readonly browser: BrowserContext,
    private readonly server: CodeServer,
  ) {}

  /** Starts code-server with the extension installed and opens `folder` in a fresh headless chromium. */
  static async open(folder: string, settings?: Record<string, unknown>): Promise<Workbench> {
    const server = await startCodeServer({ settings });
    try {
      installExtensionUnderTest(server.extensionsDir);
      const browser = await launchChromium(server.runDir);
      const workbench = new Workbench(browser.pages()[0] ?? (await browser.newPage()), browser, server);
      await workbench.load(folder).catch(async (error: unknown) => {
        await browser.close();
        throw error;
      });
      return workbench;
    } catch (error) {
      await server.stop();
      throw error;
    }
  }

  private async load(folder: string): Promise<void> {
    await this.page.goto(workbenchUrl(this.server.url, folder));
    await this.page.locator('.monaco-workbench').waitFor({ timeout: WORKBENCH_TIMEOUT_MS });
    await this.page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout: WORKBENCH_TIMEOUT_MS });
  }

  /** The editor of the active editor group. */
  get activeEditor(): Locator {
    return this.page.locator('.editor-group-container.active .editor-instance .monaco-editor').first();
  }

  /** Opens a file of the workspace with Quick Open (Ctrl+P); `name` is what gets typed, e.g. `main.c`. */
  async openFile(name: string): Promise<void> {
    const fileName = path.basename(name);
    await this.page.keyboard.press('Control+P');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await input.fill(name);
    await this.page.locator('.quick-input-list .monaco-list-row', { hasText: fileName }).first().waitFor({ timeout: UI_TIMEOUT_MS });
    await this.page.keyboard.press('Enter');
    await this.page.locator('.tabs-container .tab.active', { hasText: fileName }).waitFor({ timeout: UI_TIMEOUT_MS });
    await this.activeEditor.locator('.view-lines').waitFor({ timeout: UI_TIMEOUT_MS });
  }

  /** The CodeLenses of the active editor: `<a>` when the lens has a command, `<span>` when not (besides ` | ` separators). */
  private get lenses(): Locator {
    return this.activeEditor.locator('.codelens-decoration > a, .codelens-decoration > span');
  }

  /** Waits for a CodeLens of the active editor whose text contains `text` (or matches it) and returns its text. */
  async waitForLens(text: string | RegExp): Promise<string> {
    const lens = this.lenses.filter({ hasText: text }).first();
    try {
      // Attached, not visible: a lens below the fold is rendered but hidden until scrolled to.
      await lens.waitFor({ state: 'attached', timeout: LENS_TIMEOUT_MS });
    } catch (error) {
      const shown = await this.lensTexts();
      throw new Error(`no CodeLens matching ${String(text)} within ${LENS_TIMEOUT_MS / 1000} s; lenses shown: ${JSON.stringify(shown)}`, { cause: error });
    }
    return (await lens.innerText()).trim();
  }

  /** Texts of all CodeLenses shown in the active editor. */
  async lensTexts(): Promise<string[]> {
    const texts = await this.lenses.allInnerTexts();
    return texts.map((text) => text.trim()).filter((text) => text !== '|');
  }

  /** The CodeLenses of the active editor with the 1-based line each stands above. */
  lensLines(): Promise<LensLine[]> {
    return this.activeEditor.evaluate(collectLensLines);
  }

  /** Clicks the part of the lens above `line` (1-based) whose text contains `text`. */
  async clickLens(line: number, text: string): Promise<void> {
    const lens = (await this.lensLines()).find((l) => l.line === line && l.text.includes(text));
    if (!lens) throw new Error(`no lens "${text}" above line ${line}: ${JSON.stringify(await this.lensLines())}`);
    await this.activeEditor.locator('.contentWidgets .codelens-decoration').nth(lens.index).locator('a', { hasText: text }).click();
  }

  /** Moves the cursor of the active editor to a 1-based line with Go to Line (Ctrl+G), scrolling it into view. */
  async goToLine(line: number): Promise<void> {
    await this.page.keyboard.press('Control+G');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await input.fill(`:${line}`);
    await this.page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden', timeout: UI_TIMEOUT_MS });
  }

  /**
   * Shows the hover at the cursor (Show Hover, Ctrl+K Ctrl+I) until one holding `text` is
   * visible, pressing the chord again every few seconds: one pressed while the editor is still
   * taking the focus back from the quick input is lost (a clean clone's CI run waited 30 s for a
   * hover that never came).
   */
  async hoverAtCursor(text: string | RegExp): Promise<Locator> {
    const hover = this.page.locator('.monaco-hover', { hasText: text }).first();
    const deadline = Date.now() + UI_TIMEOUT_MS;
    for (;;) {
      await this.page.keyboard.press('Control+K');
      await this.page.keyboard.press('Control+I');
      try {
        await hover.waitFor({ timeout: 5_000 });
        return hover;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await this.page.keyboard.press('Escape');
      }
    }
  }

  /** Runs a command from the palette by its full title, e.g. `Causal Lens: Next Hot Line`. */
  async runCommand(title: string): Promise<void> {
    await this.page.keyboard.press('F1');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await input.fill(`>${title}`);
    await this.page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: UI_TIMEOUT_MS });
    await this.page.keyboard.press('Enter');
  }

  /** The visible lines of the active editor that carry an extension decoration, by line number. */
  lineDecorations(): Promise<LineDecoration[]> {
    return this.activeEditor.evaluate(collectLineDecorations);
  }

  /**
   * The content of the (only) visible webview: two nested iframes deep (the workbench's
   * `iframe.webview.ready`, then the `#active-frame` holding the extension's HTML). Webviews are
   * overlaid on the workbench, not inside the editor group that shows their tab.
   */
  webview(): FrameLocator {
    return this.page.locator('iframe.webview.ready').first().contentFrame().locator('#active-frame').contentFrame();
  }

  /** Saves a screenshot of the page as test-results/e2e-<name>.png and returns its path. */
  async screenshot(name: string): Promise<string> {
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const file = path.join(SCREENSHOT_DIR, `e2e-${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  async close(): Promise<void> {
    try {
      await this.browser.close();
    } finally {
      await this.server.stop();
    }
  }
}

/**
 * Opens `folder`, runs `use`, and always closes everything again; on failure it first saves
 * test-results/e2e-<name>-failure.png.
 */
export async function withWorkbench(
  folder: string,
  name: string,
  use: (workbench: Workbench) => Promise<void>,
  settings?: Record<string, unknown>,
): Promise<void> {
  const workbench = await Workbench.open(folder, settings);
  try {
    await use(workbench);
  } catch (error) {
    await workbench.screenshot(`${name}-failure`).catch(() => undefined);
    throw error;
  } finally {
    await workbench.close();
  }
}

/** The few DOM members collectLineDecorations uses (the project compiles without the "dom" lib). */
interface PageElement {
  readonly textContent: string | null;
  readonly style: { readonly top: string };
  readonly parentElement: PageElement | null;
  closest(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
  readonly ownerDocument: {
    readonly defaultView: { getComputedStyle(element: PageElement, pseudoElement?: string): { backgroundColor: string; content: string } };
  };
}

/**
 * Runs in the page, on a `.monaco-editor`. Monaco positions the line-number row, the overlay row
 * (whole-line backgrounds) and the text row of a line at the same `top`, which ties them together.
 * Extension decorations have class names containing `TextEditorDecorationType`.
 */
function collectLineDecorations(editor: PageElement): LineDecoration[] {
  const styleOf = (element: PageElement, pseudoElement?: string) => editor.ownerDocument.defaultView.getComputedStyle(element, pseudoElement);
  const linesByTop = new Map<string, LineDecoration>();
  for (const lineNumber of editor.querySelectorAll('.margin-view-overlays .line-numbers')) {
    linesByTop.set(lineNumber.parentElement?.style.top ?? '', { line: Number(lineNumber.textContent), backgrounds: [], afterTexts: [] });
  }
  for (const overlay of editor.querySelectorAll('.view-overlays [class*="TextEditorDecorationType"]')) {
    const background = styleOf(overlay).backgroundColor;
    if (background !== 'rgba(0, 0, 0, 0)') {
      linesByTop.get(overlay.parentElement?.style.top ?? '')?.backgrounds.push(background);
    }
  }
  for (const span of editor.querySelectorAll('.view-lines [class*="TextEditorDecorationType"]')) {
    const content = styleOf(span, '::after').content;
    if (content.startsWith('"')) {
      linesByTop.get(span.closest('.view-line')?.style.top ?? '')?.afterTexts.push(JSON.parse(content) as string);
    }
  }
  return [...linesByTop.values()]
    .filter((line) => line.backgrounds.length > 0 || line.afterTexts.length > 0)
    .sort((a, b) => a.line - b.line);
}

/**
 * Runs in the page, on a `.monaco-editor`. A lens is a content widget in a view zone right
 * above its line, in the same coordinates as the line rows: its line is the first row below it.
 */
function collectLensLines(editor: PageElement): LensLine[] {
  const px = (value: string) => Number.parseFloat(value);
  const rows = [...editor.querySelectorAll('.margin-view-overlays .line-numbers')]
    .map((n) => ({ line: Number(n.textContent), top: px(n.parentElement?.style.top ?? 'NaN') }))
    .filter((r) => Number.isFinite(r.top))
    .sort((a, b) => a.top - b.top);
  const lenses: LensLine[] = [];
  let index = -1;
  for (const widget of editor.querySelectorAll('.contentWidgets .codelens-decoration')) {
    index++;
    const top = px(widget.style.top);
    const row = rows.find((r) => r.top > top);
    const text = [...widget.querySelectorAll(':scope > a, :scope > span')]
      .map((part) => (part.textContent ?? '').trim())
      .filter((part) => part !== '' && part !== '|')
      .join(' | ');
    if (row && text) lenses.push({ line: row.line, text, index });
  }
  return lenses.sort((a, b) => a.line - b.line);
}
