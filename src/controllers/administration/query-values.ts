import { ValidateBy, type ValidationOptions } from 'class-validator';
import { AUDIT_EVENT_TYPES, type AuditEventType } from '../../services/audit-event';
import { isRecordId } from '../../services/record-id';

/*
 * Query values arrive as strings (or arrays of them, when repeated): these validators read the text itself, so a
 * bad value is a `validation_error` naming its field, never routing-controllers' own coercion (which takes `1` and
 * an empty value for true). The DTOs keep the text; each DTO's `toFilters()` reads the validated text once.
 * Messages never repeat the submitted value.
 */

const WHOLE_NUMBER = /^[0-9]{1,9}$/;
// A day, or an instant with its offset: an instant without one would be read in the server's own time zone.
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;
const AUDIT_TYPES = new Set<string>(AUDIT_EVENT_TYPES);
/** More names than there are types only repeats them. */
const MAX_TYPE_NAMES = AUDIT_EVENT_TYPES.length;

/** A whole number from `min` to `max`, written in digits. */
export function IsWholeNumberText(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWholeNumberText',
      validator: {
        validate: (value) => typeof value === 'string' && WHOLE_NUMBER.test(value) && inRange(Number(value), min, max),
        defaultMessage: (args) => `${args?.property} must be a whole number from ${min} to ${max}`,
      },
    },
    options,
  );
}

/**
 * Text without C0 controls (NUL first among them, which PostgreSQL refuses in text) or DEL: the JSON Schema `pattern`
 * of a text parameter in the document, and the check.
 */
export const NO_CONTROL_PATTERN = '^[^\\u0000-\\u001f\\u007f]*$';
const PLAIN_TEXT = new RegExp(NO_CONTROL_PATTERN);

/** The id of an account (or of anything Gatehouse makes): a UUID, the shape of every id it makes. */
export function IsRecordIdText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isRecordIdText',
      validator: {
        validate: (value) => isRecordId(value),
        defaultMessage: (args) => `${args?.property} must be an id as Gatehouse gives them (a UUID)`,
      },
    },
    options,
  );
}

/** Text without control characters (a search prefix): a NUL byte or a line break is no part of a name or address. */
export function IsPlainText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPlainText',
      validator: {
        validate: (value) => typeof value === 'string' && PLAIN_TEXT.test(value),
        defaultMessage: (args) => `${args?.property} must be text without control characters`,
      },
    },
    options,
  );
}

/** `true` or `false`, exactly. */
export function IsBooleanText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isBooleanText',
      validator: {
        validate: (value) => value === 'true' || value === 'false',
        defaultMessage: (args) => `${args?.property} must be true or false`,
      },
    },
    options,
  );
}

/** An ISO 8601 day (`2026-01-31`, midnight UTC) or instant with its offset (`2026-01-31T12:00:00Z`). */
export function IsInstantText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isInstantText',
      validator: {
        validate: (value) => typeof value === 'string' && instantOf(value) !== null,
        defaultMessage: (args) =>
          `${args?.property} must be an ISO 8601 day or instant with its offset, e.g. 2026-01-31T12:00:00Z`,
      },
    },
    options,
  );
}

/** Audit event types, given as the parameter repeated, as a comma-separated list, or both. */
export function IsAuditTypeList(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isAuditTypeList',
      validator: {
        validate: (value) => {
          const names = auditTypeNames(value);
          return names !== null && names.length <= MAX_TYPE_NAMES && names.every((name) => AUDIT_TYPES.has(name));
        },
        defaultMessage: (args) => `${args?.property} must name audit event types (see AUDIT_EVENT_TYPES)`,
      },
    },
    options,
  );
}

/** The instant of a value `IsInstantText` accepts; null for any other. */
export function instantOf(text: string): Date | null {
  const match = INSTANT.exec(text);
  if (!match) return null;
  const [year, month, day] = match.slice(1, 4).map(Number);
  // Date.parse rolls 2026-02-30 over into March: the day must exist.
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return null;
  const instant = new Date(text);
  return Number.isNaN(instant.getTime()) ? null : instant;
}

/** The names of a `type` value that `IsAuditTypeList` accepts. */
export function auditTypesOf(value: readonly string[] | string): AuditEventType[] {
  return [...new Set(auditTypeNames(value))] as AuditEventType[];
}

function auditTypeNames(value: unknown): string[] | null {
  const parts = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(parts) || parts.length === 0 || parts.length > MAX_TYPE_NAMES) return null;
  if (!parts.every((part) => typeof part === 'string')) return null;
  return (parts as string[]).flatMap((part) => part.split(',')).map((name) => name.trim());
}

function inRange(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}
