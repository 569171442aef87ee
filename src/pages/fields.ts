import { MAX_EMAIL } from '../controllers/dto/bounds';
import { html, HtmlValue, SafeHtml } from './html';

export interface FieldOptions {
  /** The form's id; with `name` it makes the field's id, so two forms of one page can share a field name. */
  form: string;
  /** The JSON field the value is sent as. */
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password';
  /** The `autocomplete` token: password managers and autofill rely on it (`new-password`, `username`, ...). */
  autocomplete: string;
  hint?: HtmlValue;
  /** Shown by the script when the field is submitted empty. */
  missing: string;
  /** Another field of the form this one must equal (the second new password), and the words when it does not. */
  sameAs?: { name: string; message: string };
  /** The DTO's bound, so a browser cannot send what the API would refuse as too long. */
  maxLength?: number;
  /** `numeric` for a code of digits: phones then show a number pad, and the field still takes what is pasted. */
  inputMode?: 'numeric';
  /** May be sent empty (a search box): no `required`, and the script does not ask for it. */
  optional?: boolean;
}

/** The email address field of a form (sign-up, reset request, resend), with the API's bound. */
export function emailField(form: string, hint?: HtmlValue): SafeHtml {
  return field({
    form,
    name: 'email',
    label: 'Email address',
    type: 'email',
    autocomplete: 'email',
    hint,
    missing: 'Enter your email address',
    maxLength: MAX_EMAIL,
  });
}

/**
 * A labelled input with its hint and an error slot, linked by `aria-describedby` so a screen reader reads them with
 * the field. The error stands above the input, where it is seen before the value is corrected.
 */
export function field(options: FieldOptions): SafeHtml {
  const id = `${options.form}-${options.name}`;
  const hintId = options.hint ? `${id}-hint` : undefined;
  const errorId = `${id}-error`;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ');
  return html`<div class="field">
<label for="${id}">${options.label}</label>
${options.hint ? html`<p class="hint" id="${hintId}">${options.hint}</p>` : ''}
<p class="field-error" id="${errorId}" hidden></p>
<input id="${id}" name="${options.name}" type="${options.type ?? 'text'}" autocomplete="${options.autocomplete}"
  ${options.maxLength ? html`maxlength="${options.maxLength}"` : ''}${
    options.inputMode ? html` inputmode="${options.inputMode}"` : ''
  }${options.optional ? '' : html` required`} aria-describedby="${describedBy}"
  data-missing="${options.missing}"${sameAs(options.sameAs)} autocapitalize="none" spellcheck="false">
</div>`;
}

function sameAs(other: FieldOptions['sameAs']): SafeHtml | '' {
  return other ? html` data-same-as="${other.name}" data-mismatch="${other.message}"` : '';
}

export interface CheckboxOptions {
  form: string;
  /** The JSON field the box is sent as: `true` when ticked, `false` when not. */
  name: string;
  label: string;
  hint?: HtmlValue;
  checked: boolean;
}

/** A box to tick, its label beside it; the script sends it as a boolean, never as the text "on". */
export function checkbox(options: CheckboxOptions): SafeHtml {
  const id = `${options.form}-${options.name}`;
  const hintId = `${id}-hint`;
  return html`<div class="field check">
<input id="${id}" name="${options.name}" type="checkbox"${options.checked ? html` checked` : ''}${
    options.hint ? html` aria-describedby="${hintId}"` : ''
  }>
<label for="${id}">${options.label}</label>
${options.hint ? html`<p class="hint" id="${hintId}">${options.hint}</p>` : ''}
</div>`;
}

export interface FormOptions {
  id: string;
  /**
   * The API route the script sends the form to. It is also the form's action with method POST, so that a browser
   * submitting the form without the script posts it (and is refused as a non-JSON body) instead of putting a
   * password into a URL.
   */
  action: string;
  submit: string;
  fields: SafeHtml[];
  /** Extra class of the submit button (`danger` for deletion). */
  buttonClass?: string;
  /** Not shown until the script shows it (the other way of answering a step). */
  hidden?: boolean;
}

/** A form the script drives; `novalidate`, because the script reports missing fields in words beside them. */
export function form(options: FormOptions): SafeHtml {
  return html`<form id="${options.id}" method="post" action="${options.action}" novalidate${
    options.hidden ? html` hidden` : ''
  }>
${options.fields}
<button type="submit"${options.buttonClass ? html` class="${options.buttonClass}"` : ''}>${options.submit}</button>
</form>`;
}
