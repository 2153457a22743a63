/** §Image import: the form description and the import itself (admin). */
import { route } from '../http/route';
import { importForm, importImage, importSchema } from '../images/import';

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
];
