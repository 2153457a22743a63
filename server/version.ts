/** Berth's own version (package.json) and the API level it speaks. */
export { API_VERSION } from './client/sign';
export const BERTH_VERSION = '0.1.0';
