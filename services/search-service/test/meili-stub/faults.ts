import type { Doc, RecordedRequest } from './api';

/** The failures a test asks for: requests that fail or hang, document tasks that fail. */
export function createFaults() {
  let failing: Array<{ n: number; status: number; match: (r: RecordedRequest) => boolean }> = [];
  let hanging: Array<{ n: number; match: (r: RecordedRequest) => boolean }> = [];
  let taskFailures: Array<{ n: number; type: string; match: (docs: Doc[]) => boolean }> = [];
  return {
    failRequests: (
      n: number,
      status = 503,
      match: (r: RecordedRequest) => boolean = () => true,
    ) => {
      failing.push({ n, status, match });
    },
    hangRequests: (n: number, match: (r: RecordedRequest) => boolean = () => true) => {
      hanging.push({ n, match });
    },
    failTasks: (
      n: number,
      type = 'invalid_request',
      match: (docs: Doc[]) => boolean = () => true,
    ) => {
      taskFailures.push({ n, type, match });
    },
    /** true (and counted) when this request is to hang */
    hangs(r: RecordedRequest): boolean {
      const hang = hanging.find((h) => h.n > 0 && h.match(r));
      if (hang) hang.n--;
      return !!hang;
    },
    /** the status this request is to fail with, if any (counted) */
    failure(r: RecordedRequest): number | undefined {
      const fail = failing.find((f) => f.n > 0 && f.match(r));
      if (fail) fail.n--;
      return fail?.status;
    },
    /** the failure of a document task on these documents, if one is due (counted) */
    documentTaskFailure(docs: Doc[]) {
      const f = taskFailures.find((t) => t.n > 0 && t.match(docs));
      if (!f) return undefined;
      f.n--;
      return {
        code: f.type === 'internal' ? 'internal' : 'invalid_document_fields',
        message: 'stub task failure',
        type: f.type,
      };
    },
    reset() {
      failing = [];
      hanging = [];
      taskFailures = [];
    },
  };
}

export type Faults = ReturnType<typeof createFaults>;
