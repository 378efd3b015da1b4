import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;
interface ResponseLike {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text?: string;
}

/**
 * Checks real responses against an OpenAPI 3.1 document: the path and method exist, the
 * status is documented, the Content-Type is one the document lists, and a JSON body
 * validates against the documented schema.
 */
export function openApiChecker(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...(doc as object), $id: 'openapi' });
  const paths = doc.paths as Record<string, Record<string, Json>>;
  const templates = Object.keys(paths).map((template) => ({
    template,
    re: new RegExp(
      `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`,
    ),
  }));
  const deref = (node: Json): Json => {
    let n = node;
    while (typeof n.$ref === 'string') {
      n = n.$ref
        .slice(2)
        .split('/')
        .reduce<Json>((acc, key) => acc[key] as Json, doc);
    }
    return n;
  };

  return function check(method: string, url: string, res: ResponseLike): void {
    const path = url.split('?')[0]!;
    const match = templates.find((t) => t.re.test(path));
    if (!match) throw new Error(`${method} ${path}: path not documented`);
    const operation = paths[match.template]![method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${match.template}: method not documented`);
    const responses = operation.responses as Record<string, Json>;
    const documented = responses[String(res.status)] ?? responses.default;
    if (!documented)
      throw new Error(`${method} ${match.template}: status ${res.status} not documented`);
    const response = deref(documented);
    const content = response.content as Record<string, Json> | undefined;
    const contentType = String(res.headers['content-type'] ?? '');
    if (!content) {
      if (res.status !== 204 && res.status !== 304 && contentType && (res.text ?? '').length > 0) {
        throw new Error(
          `${method} ${match.template} ${res.status}: body not documented (${contentType})`,
        );
      }
      return;
    }
    const norm = (t: string) => t.replace(/\s+/g, '').toLowerCase().split(';')[0]!;
    const key = Object.keys(content).find((k) => norm(k) === norm(contentType));
    if (!key)
      throw new Error(
        `${method} ${match.template} ${res.status}: content type ${contentType} not in ${Object.keys(content).join(', ')}`,
      );
    const schema = content[key]!.schema as Json | undefined;
    if (!schema || !/json/.test(key)) return;
    const pointer = `openapi#/paths/${match.template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${res.status}`;
    const validate = ajv.compile({ $ref: schemaRef(documented, pointer, key) });
    let body = res.body;
    if (
      (body === undefined ||
        (typeof body === 'object' && body !== null && Object.keys(body).length === 0)) &&
      res.text
    ) {
      body = JSON.parse(res.text);
    }
    if (!validate(body)) {
      throw new Error(
        `${method} ${match.template} ${res.status}: body does not match the schema: ${ajv.errorsText(validate.errors)}`,
      );
    }
  };
}

function schemaRef(documented: Json, pointer: string, mediaType: string): string {
  const esc = mediaType.replace(/~/g, '~0').replace(/\//g, '~1');
  if (typeof documented.$ref === 'string') return `openapi${documented.$ref}/content/${esc}/schema`;
  return `${pointer}/content/${esc}/schema`;
}
