import { Type } from 'typebox';

/** One validation fault, in the FastAPI / Pydantic v1 vocabulary the contract uses. */
export const ValidationFault = Type.Object({
  loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
    description: 'Where the fault is: "body", "query" or "path", then the field (and index).',
  }),
  msg: Type.String(),
  type: Type.String({ examples: ['type_error.enum', 'value_error.missing'] }),
  input: Type.Optional(Type.Unknown({ description: 'The offending value, when there is one.' })),
});

export const ValidationErrorBody = Type.Object(
  { detail: Type.Array(ValidationFault) },
  { description: 'Validation failed: every fault is reported.' },
);

export const MessageBody = Type.Object({ detail: Type.String() });

export function message(description: string) {
  return { ...MessageBody, description };
}
