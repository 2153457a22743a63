/** §Image import: the form description and the import itself (admin); loading a `docker save` archive [berth]. */
import { route } from '../http/route';
import { importForm, importImage, importSchema } from '../image-builds/import';
import { loadImageArchive, loadSchema } from '../images/load';

export const imageRoutes = [
  route({
    method: 'GET', path: '/image/import', privilege: 'admin', status: 'FROZEN',
    summary: 'The form describing the fields of an image import',
    response: '{fieldGroups:[{name, fields:[{name, type, label, choices?, …}]}]}',
    handler: ({ app, principal }) => importForm(app, principal),
  }),
  route({
    method: 'POST', path: '/image/import', privilege: 'admin', status: 'RUNNING', input: importSchema,
    summary: 'Convert an image into a new service-compatible one through a temporary kernel',
    response: '{importTask:{sessionId, taskId}}',
    handler: ({ app, principal, input }) => importImage(app, principal, input),
  }),
  route({
    method: 'POST', path: '/image/load', privilege: 'superadmin', status: 'RUNNING', input: loadSchema,
    summary: 'Load a docker save archive from a virtual folder onto the Docker engines (air-gapped sites)',
    response: '{task_id} (progress: GET /events/background-task?taskId=…)',
    handler: ({ app, principal, input }) => loadImageArchive(app, principal, input),
  }),
];
