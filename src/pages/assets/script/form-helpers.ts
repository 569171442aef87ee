import type { PageElement } from './browser';
import type { PageDisplay } from './page-display';

/** A form's values by input name; a checkbox gives "true" or "false". */
export type Values = Record<string, string>;

export interface FormHelpers {
  /**
   * Runs `work` with the control marked busy, so a double click sends one request. The control is not disabled:
   * a disabled button loses the keyboard focus.
   */
  busy: (control: PageElement, work: () => Promise<void>) => Promise<void>;
  /** Checks the form in the browser first (missing fields, the second password), then hands its values over. */
  onSubmit: (formId: string, send: (values: Values, form: PageElement) => Promise<void>) => void;
  onClick: (buttonId: string, work: (button: PageElement) => Promise<void>) => void;
  /** A code of the app ("123 456" counts as its digits) or a recovery code, as typed. */
  proofOf: (typed: string) => string;
}

/** The forms and buttons of the pages: one request per click, and the browser's own checks before it. */
export function formHelpers({ byId, clearMessages, showProblem }: PageDisplay): FormHelpers {
  async function busy(control: PageElement, work: () => Promise<void>): Promise<void> {
    if (control.getAttribute('aria-busy') === 'true') return;
    control.setAttribute('aria-busy', 'true');
    try {
      await work();
    } finally {
      control.removeAttribute('aria-busy');
    }
  }

  function onSubmit(formId: string, send: (values: Values, form: PageElement) => Promise<void>): void {
    const form = byId(formId);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void busy(form, async () => {
        const inputs = [...form.querySelectorAll('input')];
        const values: Values = {};
        // A checkbox's value is "on" whether ticked or not: what counts is whether it is ticked.
        for (const input of inputs)
          values[input.name] = input.type === 'checkbox' ? String(input.checked) : input.value;
        const fields: Record<string, string> = {};
        for (const input of inputs) {
          const other = input.dataset.sameAs;
          // A box to tick, and a field that may stay empty (a search), are never missing.
          if (input.type === 'checkbox' || input.getAttribute('required') === null) continue;
          if (input.value === '') fields[input.name] = input.dataset.missing ?? 'Fill in this field';
          else if (other && values[other] !== '' && input.value !== values[other]) {
            fields[input.name] = input.dataset.mismatch ?? 'The values are not the same';
          }
        }
        const names = Object.keys(fields);
        if (names.length > 0) {
          const message = names.length === 1 ? fields[names[0]] : 'Some fields need another look.';
          showProblem({ code: 'input', message, fields }, form);
          return;
        }
        clearMessages();
        await send(values, form);
      });
    });
  }

  function onClick(buttonId: string, work: (button: PageElement) => Promise<void>): void {
    const button = byId(buttonId);
    button.addEventListener('click', () => void busy(button, () => work(button)));
  }

  const proofOf = (typed: string) =>
    /^\d{6}$/.test(typed.replace(/\s/g, '')) ? typed.replace(/\s/g, '') : typed.trim();

  return { busy, onSubmit, onClick, proofOf };
}
