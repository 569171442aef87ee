import { Logger } from '../../src/services/logger';

/** A Logger that keeps every line, so tests can prove what was logged and that no secret was. */
export class CapturingLogger implements Logger {
  readonly lines: { level: string; fields: object; message: string }[] = [];

  info(fields: object, message: string) {
    this.lines.push({ level: 'info', fields, message });
  }
  warn(fields: object, message: string) {
    this.lines.push({ level: 'warn', fields, message });
  }
  error(fields: object, message: string) {
    this.lines.push({ level: 'error', fields, message });
  }

  errors() {
    return this.lines.filter((line) => line.level === 'error');
  }

  /** The fields of every line logged for this audit event, oldest first. */
  events(event: string): Record<string, unknown>[] {
    return this.lines.map((line) => line.fields as Record<string, unknown>).filter((fields) => fields.event === event);
  }

  text(): string {
    return this.lines.map((line) => JSON.stringify(line)).join('\n');
  }
}
