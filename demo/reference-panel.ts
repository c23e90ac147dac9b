// "REST reference": the endpoints this page calls, read from the OpenAPI document the worker
// serves at GET /openapi.json, so it is there offline too and is always the running service's.
import { readReference } from '../src/api/reference.js';

export async function mountReferencePanel(container: HTMLElement, base: URL): Promise<void> {
  const document = (await (await fetch(new URL('openapi.json', base))).json()) as Record<string, unknown>;
  const { endpoints, shapes } = readReference(document);
  const details = container.ownerDocument.createElement('details');
  details.innerHTML = `
    <summary><h2>REST reference <small>every endpoint this page calls, with what it sends and gets back</small></h2></summary>
    <p class="small">From <a href="openapi.json"><code>openapi.json</code></a> (OpenAPI 3.1), which the worker serves offline like every
      endpoint. Send the key of <code>POST /account</code> as <code>Authorization: Bearer …</code>.</p>
    <div class="reference-table"><table class="history reference"><thead><tr><th>endpoint</th><th>request</th><th>answer</th><th>what it does</th></tr></thead><tbody></tbody></table></div>
    <h3>Shapes</h3>
    <dl class="shapes"></dl>`;
  details.querySelector('tbody')!.replaceChildren(
    ...endpoints.map(({ endpoint, open, request, answer, summary }) => {
      const row = container.ownerDocument.createElement('tr');
      for (const text of [endpoint + (open ? ' (no key)' : ''), request, answer, summary]) row.insertCell().textContent = text.replaceAll('`', '');
      row.cells[0]!.className = 'endpoint';
      return row;
    }),
  );
  details.querySelector('dl')!.replaceChildren(
    ...shapes.flatMap(({ name, shape }) => {
      const term = container.ownerDocument.createElement('dt');
      term.textContent = name;
      const definition = container.ownerDocument.createElement('dd');
      definition.append(Object.assign(container.ownerDocument.createElement('code'), { textContent: shape }));
      return [term, definition];
    }),
  );
  container.replaceChildren(details);
}
