// What the launcher prints once both services are ready: addresses, dev credentials, examples.

export function printBanner({ feedUrl, searchUrl, host, feedToken, creds, embeddedDb }) {
  const c = creds.collection ?? { collection_id: '(none)', apikey: '(none)' };
  const db = embeddedDb
    ? `\n    embedded PostgreSQL (databases feed, search; its port changes at every start):\n      ${embeddedDb}`
    : '';
  process.stdout.write(`
  feed-service    ${feedUrl}      (API docs: ${feedUrl}/docs)
  search-service  ${searchUrl}      (API docs: ${searchUrl}/docs)
  listening on ${host}${host === '127.0.0.1' ? ' only (set HOST=0.0.0.0 to listen on every interface)' : ''}

  Dev credentials (kept in .data/dev-credentials.json, mode 0600):
    feed token (hub:read hub:write, 30 days):
      ${feedToken}
    search collection id: ${c.collection_id}
    search apikey:        ${c.apikey}
    search admin token:   ${creds.searchAdminToken}${db}

  Try:
    curl -H 'Accept: application/vnd.vendor.resource-1.0+json;charset=utf-8' \\
         -H 'Authorization: Bearer ${feedToken}' ${feedUrl}/hub/contents
    curl '${searchUrl}/v2/${c.collection_id}/status/json?apikey=${c.apikey}'

  Ctrl-C stops everything.
`);
}
