/** What one attempt came to. */
export type PingOutcome =
  | { ok: true }
  /** `failure`: the hub's status, or what went wrong on the way */
  | { ok: false; retryable: boolean; failure: string };

/** Hub answers worth another try: the hub is busy, overloaded or failing for now. */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * One publish ping (the PubSubHubbub/WebSub publisher convention): `POST` to the hub with the
 * form body `hub.mode=publish&hub.url={topic}`. Any 2xx is delivered. Redirects are not
 * followed (a POST would turn into a GET).
 */
export async function sendPing(
  hub: string,
  topic: string,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<PingOutcome> {
  try {
    const res = await fetch(hub, {
      method: 'POST',
      body: new URLSearchParams({ 'hub.mode': 'publish', 'hub.url': topic }),
      redirect: 'manual',
      signal: AbortSignal.any([stop, AbortSignal.timeout(timeoutMs)]),
    });
    await res.body?.cancel();
    if (res.status >= 200 && res.status < 300) return { ok: true };
    return { ok: false, retryable: retryableStatus(res.status), failure: `HTTP ${res.status}` };
  } catch (err) {
    const e = err as { name?: string; message?: string; cause?: { code?: string } };
    const failure =
      e.name === 'TimeoutError'
        ? `no answer within ${timeoutMs} ms`
        : (e.cause?.code ?? e.message ?? String(err));
    return { ok: false, retryable: true, failure };
  }
}
