// What the browser specs check on every page they show: that Tab reaches each control, with a
// visible focus ring, and that axe-core finds nothing serious; each check leaves a screenshot.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { PROJECT_ROOT } from '../processes/run-source.js';

// The page's globals that the keyboard walk reads inside page.evaluate(): this project compiles
// without the DOM library, so they are declared as far as they are used.
interface PageElement {
  tagName: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
}
declare const document: { activeElement: PageElement | null; body: PageElement };
declare function getComputedStyle(element: PageElement): { outlineStyle: string; outlineWidth: string };

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** Where the browser specs leave their screenshots (for people, and the docs' images). */
export const SCREENSHOTS = join(PROJECT_ROOT, '.cache', 'screenshots');

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** What `tabThrough` found: on a page in order, three empty lists (`walkedCleanly`). */
export interface TabWalk {
  path: string;
  /** Controls Tab reached that the page does not list as visible controls. */
  unexpected: string[];
  /** Visible controls Tab never reached. */
  unreached: string[];
  /** Controls that had no focus ring of 2px or more when focused. */
  unringed: string[];
}

/** `tabThrough`'s answer for a page where every control is reached, with a ring. */
export function walkedCleanly(path: string): TabWalk {
  return { path, unexpected: [], unreached: [], unringed: [] };
}

/**
 * Opens `path` and presses Tab through it: `expect(await tabThrough(page, path)).toEqual(walkedCleanly(path))`.
 * Controls are named by tag and text (or `name`), the same way in both callbacks, which run in
 * the page.
 */
export async function tabThrough(page: Page, path: string): Promise<TabWalk> {
  await page.goto(path);
  const controls = await page.$$eval(
    'a[href], button, input:not([type="hidden"]), summary, select, textarea',
    (elements) =>
      elements
        .filter((element) => element.checkVisibility())
        .map((e) => `${e.tagName.toLowerCase()} "${e.textContent?.trim().slice(0, 30) || e.getAttribute('name')}"`),
  );
  // A date-time field is several Tab stops in Chromium (its six parts and the picker button).
  const dateTimeStops = (await page.$$('input[type="datetime-local"]')).length * 7;
  const reached: string[] = [];
  const unringed: string[] = [];
  for (let step = 0; step < controls.length + dateTimeStops + 3; step++) {
    await page.keyboard.press('Tab');
    const focused = await focusedControl(page);
    if (!focused) continue;
    if (!reached.includes(focused.name)) reached.push(focused.name);
    if (!focused.ring && !unringed.includes(focused.name)) unringed.push(focused.name);
  }
  return {
    path,
    unexpected: reached.filter((name) => !controls.includes(name)),
    unreached: controls.filter((name) => !reached.includes(name)),
    unringed,
  };
}

/**
 * The control that has the focus, named as `tabThrough` names them (`a "Links tagged news"`), and
 * whether it shows a focus ring of 2px or more; null when nothing has it.
 */
export function focusedControl(page: Page): Promise<{ name: string; ring: boolean } | null> {
  return page.evaluate(() => {
    const e = document.activeElement;
    if (!e || e === document.body) return null;
    const style = getComputedStyle(e);
    return {
      name: `${e.tagName.toLowerCase()} "${e.textContent?.trim().slice(0, 30) || e.getAttribute('name')}"`,
      ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
    };
  });
}

/**
 * Runs axe-core on the page as it is now and leaves a full-page screenshot `<screenshot>.png`
 * in SCREENSHOTS; the serious and critical violations, each as `id: help (targets)`. The page's
 * context must bypass the CSP (`bypassCSP: true`), which rightly refuses the inline script axe
 * is injected as. Throws if axe checked next to nothing: such a run would pass silently.
 */
export async function seriousViolations(page: Page, screenshot: string): Promise<string[]> {
  await page.addScriptTag({ content: AXE_SOURCE });
  const { violations, passes } = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[]; passes: unknown[] }> } }
    ).axe;
    const results = await axe.run();
    return { violations: results.violations, passes: results.passes.length };
  });
  if (passes <= 10) throw new Error(`axe-core checked only ${passes} rules on ${page.url()}`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${screenshot}.png`), fullPage: true });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`);
}

/**
 * Checks pages one after the other on `page` at one size: `check(name)` runs `seriousViolations`
 * on the page as it is now (its screenshot `<name>-<size>.png`), and `found` keeps what each had.
 */
export function violationsOnPages(
  page: Page,
  size: string,
): { found: Record<string, string[]>; check: (name: string) => Promise<void> } {
  const found: Record<string, string[]> = {};
  const check = async (name: string) => {
    found[name] = await seriousViolations(page, `${name}-${size}`);
  };
  return { found, check };
}
