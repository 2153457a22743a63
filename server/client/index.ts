/** The signing client's public surface: what scripts, the CLI, the dashboard, tests and benchmarks import. */
export { BerthClient, ApiError, ApiResponse, buildQuery, type ClientOptions, type Credentials, type RequestOptions } from './client';
export { signRequest, computeSignature, parseRequestDate, API_VERSION } from './sign';
