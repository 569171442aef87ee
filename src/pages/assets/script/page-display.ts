import type { Problem } from './api-calls';
import type { BrowserDocument, PageElement } from './browser';

declare const document: BrowserDocument;

export interface PageDisplay {
  byId: (id: string) => PageElement;
  clearMessages: () => void;
  showNotice: (text: string) => void;
  /**
   * The alert holds the message (and the list of field problems); each field's own message stands above it. The
   * focus goes to the first field to correct, whose label and message a screen reader reads, else to the alert.
   */
  showProblem: (problem: Problem, form?: PageElement) => void;
  /** An instant of the API as a `<time>`, in the reader's own locale and time zone. */
  timeOf: (iso: string) => PageElement;
  timeCell: (iso: string) => PageElement;
  textCell: (text: string) => PageElement;
  /** Swaps what the page shows and moves the focus to the new part, so keyboard and screen reader users follow. */
  show: (id: string, focusId?: string) => void;
  hide: (id: string) => void;
}

/** Showing things: the page's two live regions (`#notice`, `#error`), the parts it swaps, times and table cells. */
export function pageDisplay(): PageDisplay {
  const errorBox = byId('error');
  const noticeBox = byId('notice');

  function byId(id: string): PageElement {
    const element = document.getElementById(id);
    if (!element) throw new Error(`missing #${id}`);
    return element;
  }

  function clearMessages(): void {
    errorBox.hidden = true;
    errorBox.replaceChildren();
    noticeBox.hidden = true;
    noticeBox.replaceChildren();
    for (const slot of document.body.querySelectorAll('.field-error')) {
      slot.hidden = true;
      slot.textContent = '';
    }
    for (const input of document.body.querySelectorAll('input[aria-invalid]')) input.removeAttribute('aria-invalid');
  }

  function showNotice(text: string): void {
    noticeBox.textContent = text;
    noticeBox.hidden = false;
    noticeBox.focus();
  }

  function showProblem(problem: Problem, form?: PageElement): void {
    clearMessages();
    const summary = document.createElement('p');
    summary.textContent = problem.message;
    errorBox.append(summary);
    let first: PageElement | null = null;
    const list = document.createElement('ul');
    for (const [name, message] of Object.entries(problem.fields)) {
      const input = form?.querySelector(`input[name="${name}"]`);
      const slot = input ? form?.querySelector(`#${input.getAttribute('id')}-error`) : null;
      if (!input || !slot) continue;
      slot.textContent = message;
      slot.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      first = first ?? input;
      if (message !== problem.message) {
        const item = document.createElement('li');
        item.textContent = message;
        list.append(item);
      }
    }
    if (list.querySelector('li')) errorBox.append(list);
    errorBox.hidden = false;
    (first ?? errorBox).focus();
  }

  function timeOf(iso: string): PageElement {
    const time = document.createElement('time');
    time.setAttribute('datetime', iso);
    const date = new Date(iso);
    time.textContent = Number.isNaN(date.getTime())
      ? iso
      : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
    return time;
  }

  function timeCell(iso: string): PageElement {
    const cell = document.createElement('td');
    cell.append(timeOf(iso));
    return cell;
  }

  function textCell(text: string): PageElement {
    const cell = document.createElement('td');
    cell.textContent = text;
    return cell;
  }

  function show(id: string, focusId?: string): void {
    byId(id).hidden = false;
    if (focusId) byId(focusId).focus();
  }
  function hide(id: string): void {
    byId(id).hidden = true;
  }

  return { byId, clearMessages, showNotice, showProblem, timeOf, timeCell, textCell, show, hide };
}
