// The layer rule (`npm run lint`, and so `npm test`): which part of the code may import which. The order is written
// in docs/architecture.md ("Layers"); each rule's comment is the message a broken rule prints.
//
//   base      server/util/, server/version.ts, the request signing in server/client/sign.ts, the coded errors and
//             parameter helpers in server/http/
//   db        server/db/ (schema, migrations, the list query helper)
//   backends  server/agents/ (the Agent interface and its backends)
//   domain    every other folder of server/ (sessions, storage, images, accounts, ...)
//   surface   server/api/, server/graphql/, server/web/, server/appproxy/, the request pipeline in server/http/
//             (pipeline, router, websocket)
//   root      server/start.ts, server/main.ts, server/manager-server.ts (the composition root)
//
// A layer imports its own and lower layers only.
const BASE = '^server/(util/|version[.]ts$|client/sign[.]ts$|http/(problem|params|control-characters)[.]ts$)';
const DB = '^server/db/';
const BACKENDS = '^server/agents/';
const SURFACE = '^server/(api|graphql|web|appproxy)/|^server/http/(pipeline|router|websocket)[.]ts$';
const ROOT = '^server/(start|main|manager-server)[.]ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules must not import each other in a circle: move what both need into a module below them both.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'server-not-dashboard',
      severity: 'error',
      comment: 'server/ is the manager core: it never imports the dashboard (app/, components/).',
      from: { path: '^server/' },
      to: { path: '^(app|components)/' },
    },
    {
      name: 'base-imports-base',
      severity: 'error',
      comment: 'The base layer (server/util/, version.ts, client/sign.ts, http/problem|params|control-characters) imports nothing else of server/.',
      from: { path: BASE },
      to: { path: '^server/', pathNot: BASE },
    },
    {
      name: 'db-below-domain',
      severity: 'error',
      comment: 'server/db/ may import only server/db/ and the base layer (util/, version.ts, http/problem|params).',
      from: { path: DB },
      to: { path: '^server/', pathNot: `${DB}|${BASE}` },
    },
    {
      name: 'backends-below-domain',
      severity: 'error',
      comment:
        'server/agents/ (the backends) may import the base layer, db/, app.ts, config/ and resources/ensure-scaling-group; ' +
        'the domain modules drive the backends, never the other way round.',
      from: { path: BACKENDS },
      to: {
        path: '^server/',
        pathNot: `${BASE}|${DB}|${BACKENDS}|^server/app[.]ts$|^server/config/|^server/resources/ensure-scaling-group[.]ts$`,
      },
    },
    {
      name: 'backends-speak-no-http',
      severity: 'error',
      comment: 'server/agents/ (the backends) does not speak HTTP: no import of server/http/, not even its coded errors; the domain module that calls a backend turns its failure into a Problem.',
      from: { path: BACKENDS },
      to: { path: '^server/http/' },
    },
    {
      name: 'backends-apart',
      severity: 'error',
      comment: 'A backend (agents/docker, agents/local, agents/slurm) imports no other backend; what they share lives in agents/channel, agents/sandbox or agents/agent.ts.',
      from: { path: '^server/agents/(docker|local|slurm)/' },
      to: { path: '^server/agents/(docker|local|slurm)/', pathNot: '^server/agents/$1/' },
    },
    {
      name: 'domain-below-surface',
      severity: 'error',
      comment: 'Domain modules are called by the surface (api/, graphql/, web/, appproxy/, http/pipeline|router|websocket), never the other way round.',
      from: { path: '^server/', pathNot: `${SURFACE}|${ROOT}` },
      to: { path: SURFACE },
    },
    {
      name: 'root-on-top',
      severity: 'error',
      comment: 'The composition root (start.ts, main.ts, manager-server.ts) wires the parts; nothing imports it back.',
      from: { path: '^server/', pathNot: ROOT },
      to: { path: ROOT },
    },
    {
      name: 'images-below-sessions',
      severity: 'error',
      comment: 'images/ (the image catalog) sits below sessions/, which resolves images through it; what makes an image from a session lives in image-builds/.',
      from: { path: '^server/images/' },
      to: { path: '^server/(sessions|image-builds)/' },
    },
    {
      name: 'optional-libraries-on-demand',
      severity: 'error',
      comment:
        'Libraries only some managers use (dockerode, @peculiar/x509 and reflect-metadata, archiver, pg) are loaded by import() where first needed ' +
        '(agents/docker/engine.ts, agents/channel/credentials.ts, storage/transfers/download.ts, db/postgres-driver.ts): a static import keeps them in every manager\'s memory.',
      from: { path: '^server/' },
      to: { path: '^node_modules/(dockerode|@peculiar/x509|reflect-metadata|archiver|pg)/', dependencyTypesNot: ['dynamic-import', 'type-only', 'type-import'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a type from above is an arrow up like any other.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.mjs', '.js'] },
  },
};
