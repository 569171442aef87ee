import { ValidateIf } from 'class-validator';

/**
 * The field may be left out. Unlike class-validator's `@IsOptional()`, which skips `null` as well, a `null` is a
 * value like any other: the field's own rules judge it, and refuse it, as the API description (which types the field
 * and never allows null) says. Still read as optional when the description is generated (a conditional validation).
 */
export function OptionalField(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}
