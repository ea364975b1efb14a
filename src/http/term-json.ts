import { Readable } from 'node:stream';
import type { Term } from '../glossary/term.ts';

declare const serializedFrom: unique symbol;
/** JSON text serialized from a `T`: the type remembers what the text was made from. */
export type JsonText<T> = string & { readonly [serializedFrom]: T };
/** A stream of the JSON text of a `T`. */
export type JsonStream<T> = Readable & { readonly [serializedFrom]: T };

/**
 * What a typed reply's `send` takes: with the TypeBox type provider, the type of the response
 * schema (of the status set with `code()`, or any of the route's when none is).
 */
type Payload<Reply> = Reply extends { send(...args: infer Args): unknown } ? Args[0] : never;

/**
 * Sends JSON already serialized (for its ETag, or chunk by chunk for a long list): Fastify
 * passes JSON text or a stream through as it is, where it would otherwise serialize the value
 * again. The type provider's check stays: the text must have been made from the type the
 * route's response schema describes. The one cast is here because Fastify's types cannot say
 * "the JSON of a T"; its argument's type is what carries the check.
 */
export function sendJson<Reply extends { send(...args: never[]): unknown }>(
  reply: Reply,
  json: JsonText<Payload<Reply>> | JsonStream<Payload<Reply>>,
): ReturnType<Reply['send']> {
  return (reply.send as (payload: unknown) => ReturnType<Reply['send']>).call(reply, json);
}

/**
 * The body of a HEAD answer to a long list: an empty stream, so the headers are those a GET
 * gets (chunked, no length) without reading the list. It stands for the JSON a GET would send.
 */
export function headBody<T>(): JsonStream<T> {
  return Readable.from([]) as JsonStream<T>;
}

/**
 * One term's JSON, the five fields in the contract's order, then `aliases` and `avoid` when
 * they have entries (a term without them answers exactly the five fields); a hot path for long
 * lists.
 */
export function serializeTerm(term: Term): JsonText<Term> {
  const names =
    (term.aliases && term.aliases.length > 0 ? `,"aliases":${JSON.stringify(term.aliases)}` : '') +
    (term.avoid && term.avoid.length > 0 ? `,"avoid":${JSON.stringify(term.avoid)}` : '');
  return `{"id":${term.id},"term":${JSON.stringify(term.term)},"definition":${JSON.stringify(term.definition)},"category":"${term.category}","see_also":[${term.see_also.join(',')}]${names}}` as JsonText<Term>;
}

/** The terms' JSON, comma-separated: the inside of an array. */
export function serializeTerms(terms: readonly Term[]): string {
  let json = '';
  for (let i = 0; i < terms.length; i += 1) {
    json += i === 0 ? serializeTerm(terms[i] as Term) : `,${serializeTerm(terms[i] as Term)}`;
  }
  return json;
}

/** Marks JSON text made from a `T` as such: for serializers that build it in pieces. */
export function jsonText<T>(text: string): JsonText<T> {
  return text as JsonText<T>;
}

/** Marks a stream of the JSON of a `T` as such. */
export function jsonStream<T>(stream: Readable): JsonStream<T> {
  return stream as JsonStream<T>;
}

/**
 * A stream of bytes as the body (an export, an event stream): the route's schema describes it
 * as a string, which Fastify's types cannot relate to a stream.
 */
export function sendStream<Reply extends { send(...args: never[]): unknown }>(
  reply: Reply,
  body: Readable,
): ReturnType<Reply['send']> {
  return (reply.send as (payload: unknown) => ReturnType<Reply['send']>).call(reply, body);
}
