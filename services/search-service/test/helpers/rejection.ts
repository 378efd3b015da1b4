/**
 * The error `p` rejects with, checked to be a `type`; the test fails when `p` resolves. Say
 * `const fetchError = (p: Promise<unknown>) => rejectionOf(p, ImageFetchError)`.
 */
export async function rejectionOf<E extends Error>(
  p: Promise<unknown>,
  type: new (...args: never[]) => E,
): Promise<E> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(type);
    return err as E;
  }
  throw new Error(`expected a rejection with ${type.name}`);
}
