import { docsPageTests } from '@hub/testing';
import { makeApp, useDatabase } from './helpers/harness';

const db = useDatabase();

docsPageTests({
  service: 'feed-service',
  openapi: require('../openapi/openapi.json') as Record<string, unknown>,
  app: () => makeApp(db),
  notFound: {
    accept: 'application/json',
    text: '{"error":{"status":404,"message":"the API does not exist, or the requested version is not supported"}}',
  },
});
