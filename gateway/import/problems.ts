/**
 * What `gqlgw import openapi` reports (docs/reference.md, `gqlgw import openapi`):
 * an ImportError stops the import with the file and the JSON pointer of the place to fix; an
 * ImportWarning is a part of the document that was not mapped (or was renamed) while the rest
 * was. Neither ever carries a stack trace.
 */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    /** `#/paths/~1pets/get`, or '' when the whole file is meant. */
    readonly pointer: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ImportWarning {
  readonly pointer: string;
  readonly message: string;
}

/** `FILE#/pointer: message`, or `FILE: message` without a pointer. */
export function formatPlace(file: string, pointer: string, message: string): string {
  return `${file}${pointer}: ${message}`;
}

/** Collects warnings in the order they were found; the importer sorts them once at the end. */
export class WarningList {
  readonly items: ImportWarning[] = [];
  add(pointer: string, message: string): void {
    this.items.push({ pointer, message });
  }
}
