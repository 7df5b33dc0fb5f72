// The API page: the OpenAPI document (served as JSON by /ui/openapi) rendered as lists of endpoints and schemas.
const main = document.getElementById('api');

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function schemaName(ref) {
  return ref ? ref.replace('#/components/schemas/', '') : '';
}

function typeOf(property) {
  if (property.$ref) return schemaName(property.$ref);
  if (property.type === 'array') return 'array of ' + typeOf(property.items || {});
  const format = property.format ? ` (${property.format})` : '';
  return (property.type || 'object') + format;
}

function render(doc) {
  main.replaceChildren();
  const back = el('p');
  const home = el('a', 'flowpipe');
  home.href = './';
  back.append(home);
  main.append(back, el('h1', `${doc.info.title} ${doc.info.version}`));
  const raw = el('p');
  const link = el('a', 'openapi.yaml');
  link.href = 'openapi.yaml';
  raw.append('The OpenAPI document itself: ', link);
  main.append(raw, el('pre', doc.info.description, 'api-description'));

  main.append(el('h2', 'Endpoints'));
  const endpoints = el('table', undefined, 'api-endpoints');
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const row = el('tr');
      row.append(el('td', method.toUpperCase(), 'api-method'), el('td', path, 'api-path'),
        el('td', operation.summary || ''), el('td', Object.keys(operation.responses || {}).join(' ')));
      endpoints.append(row);
    }
  }
  main.append(endpoints);

  main.append(el('h2', 'Schemas'));
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    main.append(el('h3', name));
    if (schema.description) main.append(el('p', schema.description));
    const fields = el('table', undefined, 'api-schema');
    for (const [field, property] of Object.entries(schema.properties || {})) {
      const row = el('tr');
      const values = property.enum ? property.enum.join(', ') : '';
      row.append(el('td', field, 'api-field'), el('td', typeOf(property)),
        el('td', [values, property.description || ''].filter(Boolean).join(' — ')));
      fields.append(row);
    }
    main.append(fields);
  }
}

fetch('ui/openapi')
  .then(answer => (answer.ok ? answer.json() : Promise.reject(new Error(`HTTP ${answer.status}`))))
  .then(render)
  .catch(error => { main.replaceChildren(el('p', `The API description could not be read: ${error.message}`)); });
