/** Every route of the manager API, one module per section of the spec. */
import type { RouteDef } from '../http/route';
import { versionRoutes } from './version';
import { authRoutes } from './auth';
import { configRoutes } from './config';
import { managerRoutes } from './manager';
import { resourceRoutes } from './resource';
import { logRoutes } from './logs';
import { graphqlRoutes } from './graphql';
import { sessionRoutes } from './session';
import { sessionFileRoutes } from './session-files';
import { imageRoutes } from './image';
import { eventRoutes } from './events';
import { streamRoutes } from './stream';
import { templateRoutes } from './template';
import { openApiRoutes } from './openapi';
import { userConfigRoutes } from './user-config';
import { folderRoutes } from './folders';
import { folderTransferRoutes } from './folder-transfers';
import { folderSharingRoutes } from './folder-sharing';
import { serviceRoutes } from './services';
import { operationsRoutes } from './operations';

const sections: RouteDef[][] = [versionRoutes, authRoutes, configRoutes, managerRoutes, resourceRoutes, logRoutes, graphqlRoutes, sessionRoutes, streamRoutes, sessionFileRoutes, imageRoutes, eventRoutes, userConfigRoutes, templateRoutes, folderRoutes, folderTransferRoutes, folderSharingRoutes, serviceRoutes, operationsRoutes];

export function allRoutes(): RouteDef[] {
  return [...sections.flat(), ...openApiRoutes(() => sections.flat())];
}
