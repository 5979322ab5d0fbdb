// The error a promise rejects with, for a test to look at; the test fails if it resolves.
//
//   const error = await failure(client.get("/x"));                 // an Error
//   const usage = await failure(loadConfig(...), UsageError);       // checked, and typed so
import { expect } from "vitest";

// biome-ignore lint/suspicious/noExplicitAny: any constructor of errors.
type ErrorClass<E> = abstract new (...args: any[]) => E;

export async function failure(promise: Promise<unknown>): Promise<Error>;
export async function failure<E>(promise: Promise<unknown>, type: ErrorClass<E>): Promise<E>;
export async function failure<E>(promise: Promise<unknown>, type?: ErrorClass<E>): Promise<E | Error> {
  let outcome: { error: unknown } | undefined;
  try {
    await promise;
  } catch (error) {
    outcome = { error };
  }
  if (!outcome) return expect.fail("expected a rejection; the promise resolved");
  if (type) expect(outcome.error).toBeInstanceOf(type);
  return outcome.error as E | Error;
}
