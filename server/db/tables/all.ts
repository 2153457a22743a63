/** Every table row type, by area. */
export * from './columns';
export * from './accounts';
export * from './cluster';
export * from './images';
export * from './sessions';
export * from './services';
export * from './vfolders';
export * from './operations';
export * from './cluster-replicas';
