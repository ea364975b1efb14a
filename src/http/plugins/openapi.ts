import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { DOCUMENT_INFO, finishDocument, SECURITY_SCHEMES } from '../openapi-document.ts';

/**
 * The API document, built from the routes registered after this plugin: GET /openapi.json and
 * the reference at /docs. It registers the document's route itself, so within the
 * method-not-allowed plugin's routes (a POST to it is 405, as to any API path).
 */
export const openapi = fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      exposeHeadRoutes: true,
      transformObject: (documents) =>
        'openapiObject' in documents
          ? finishDocument(documents.openapiObject)
          : documents.swaggerObject,
      openapi: {
        openapi: '3.1.0',
        servers: [{ url: '/', description: 'The service that serves this document' }],
        components: { securitySchemes: SECURITY_SCHEMES },
        info: DOCUMENT_INFO,
        tags: [
          { name: 'terms', description: 'The glossary' },
          {
            name: 'exports',
            description:
              'The glossary as files for the tools docs teams run (TBX, Vale, textlint, MkDocs, Sphinx, Hugo)',
          },
          {
            name: 'changes',
            description:
              'The change feed: pulled, long-polled or streamed (Server-Sent Events); webhooks push the same changes',
          },
          { name: 'operations', description: 'Probes for orchestrators' },
        ],
      },
    });
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: true,
      // Served over plain http on any host name, the reference must not ask the browser to
      // upgrade its own requests to https (it would load nothing).
      transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
      // Without the top bar: its Swagger logo is an SVG with an inline <style>, which the
      // strict CSP above refuses (a console error on every load), and its box to explore
      // another document's URL has no use for the one document this service has. The
      // reference itself is the same.
      uiConfig: { layout: 'BaseLayout' },
      theme: { title: 'Technical Terms Glossary: API reference' },
    });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  // Access and the rate limit first: the document's routes need neither, but every route
  // after them is seen by both.
  { name: 'openapi', fastify: '5.x', dependencies: ['access', 'method-not-allowed'] },
);
