import { Type } from 'typebox';

/** One validation fault, in the FastAPI / Pydantic v1 vocabulary the contract uses. */
export const ValidationFault = Type.Object(
  {
    loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
      description: 'Where the fault is: "body", "query" or "path", then the field (and index).',
    }),
    msg: Type.String(),
    type: Type.String({ examples: ['type_error.enum', 'value_error.missing'] }),
    input: Type.Optional(Type.Unknown({ description: 'The offending value, when there is one.' })),
  },
  { title: 'ValidationFault' },
);

export const ValidationErrorBody = Type.Object(
  { detail: Type.Array(ValidationFault) },
  {
    title: 'ValidationError',
    description: 'Validation failed: every fault is reported.',
    examples: [
      {
        detail: [
          {
            loc: ['body', 'category'],
            msg: "value is not a valid enumeration member; permitted: 'frontend', 'backend', 'devops', 'docs-as-code'",
            type: 'type_error.enum',
            input: 'web',
          },
        ],
      },
    ],
  },
);

export const MessageBody = Type.Object(
  { detail: Type.String() },
  { title: 'Message', examples: [{ detail: 'Term not found' }] },
);

export function message(description: string) {
  return { ...MessageBody, description };
}

const retryAfter = {
  'retry-after': {
    type: 'integer',
    required: true,
    description: 'Seconds to wait before trying again.',
  },
};

/** Every route that touches storage may answer 503 while the storage cannot serve it. */
export const unavailable = {
  503: {
    ...message(
      'The storage cannot serve the request now (disk full, read-only, unreachable). A write answered 503 is not acknowledged; retry after `Retry-After` seconds.',
    ),
    headers: retryAfter,
  },
};

/** A per-client rate limit (RATE_LIMIT), or too many failed authentications (AUTH_FAILURE_LIMIT). */
export const rateLimited = {
  429: {
    ...message(
      'Too many requests from this client (only when RATE_LIMIT is set), or too many of its tokens refused (AUTH_FAILURE_LIMIT).',
    ),
    headers: retryAfter,
  },
};

const wwwAuthenticate = {
  'www-authenticate': {
    type: 'string',
    required: true,
    description: 'RFC 6750: `Bearer realm="glossary"`, with `error` when a token was refused.',
  },
};

/** Once a token exists: writes need a write token, reads one too with READ_ACCESS=token. */
export const accessErrors = {
  400: message('Malformed request: for example more than one Authorization header.'),
  401: {
    ...message(
      'A token is needed (`Authentication required.`) or the one sent is unknown or revoked (`Invalid token.`).',
    ),
    headers: wwwAuthenticate,
  },
  403: {
    ...message('The token may only read (`This token may only read.`).'),
    headers: wwwAuthenticate,
  },
};
