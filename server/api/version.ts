/** §Version check, plus the unsigned health probe and the OpenAPI reference (CONTRACT §3.3). */
import { route } from '../http/route';
import { API_VERSION, BERTH_VERSION } from '../version';

const versionInfo = () => ({ version: API_VERSION, manager: BERTH_VERSION });

export const versionRoutes = [
  route({ method: 'GET', path: '/', privilege: 'none', status: null, summary: 'Health and version probe (unsigned)', handler: versionInfo }),
  route({ method: 'GET', path: ['/v2', '/v8'], privilege: 'user', status: null, summary: 'The latest API version', handler: versionInfo }),
];
