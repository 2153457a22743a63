/**
 * `npx berth …` / `npm run cli -- …`: a small command line over the signed API, using the one signing client.
 */
import { ApiError } from '../client';
import { UsageError } from './credentials';
import { login, logout, version, whoami } from './account';
import { config } from './config';
import { events, session } from './sessions';
import { folder } from './folders';
import { image } from './images';
import { service } from './services';
import { backup, restore } from './backup';
import { appForward, ssh } from './apps';
import { dispatch, type Action } from './dispatch';

const USAGE = `Usage: berth <command> [options]

  login [--endpoint URL] [--domain D] [--username U] [--password P]
                         log in with a password and save the keypair
  logout                 forget the saved keypair
  whoami                 who the saved keypair belongs to
  version                the server's API version
  config get KEY [--prefix]        raw configuration read (superadmin)
  config set KEY VALUE             raw configuration write (superadmin)
  config delete KEY [--prefix]     raw configuration delete (superadmin)
  session create NAME [--image python|shell] [--type batch --startup-command CMD] [--scaling-group slurm]
                      [--cpu N] [--mem SIZE] [--env K=V]... [--enqueue-only]
  session info NAME                the session's record
  session exec NAME CODE...        run code (query mode) and print its output
  session exec NAME --batch CMD    run a command (batch mode)
  session logs NAME                the kernel's console log
  session destroy NAME [--forced]  end the session
  app SESSION APP [--bind HOST:PORT]
                                   forward a local port to the session's app (sshd, jupyter, ...) until Ctrl-C
  ssh SESSION [-- COMMAND...]      ssh into the session (fetches its key to ~/.berth/SESSION.key, mode 0600)
  events [--name NAME] [--scope session|kernel]
                                   print session events as JSON lines
  folder list [--json]             your folders and the ones shared with you
  folder create NAME [--group G] [--cloneable]
  folder ls NAME [PATH] [--json]   list a directory of a folder
  folder upload NAME LOCAL_FILE [REMOTE_PATH] [--chunk-size 8M]
                                   resumable (tus) upload; run it again to resume
  folder download NAME REMOTE_PATH [LOCAL_FILE] [--archive]
                                   stream a file (or a directory as a zip) to disk
  folder share NAME EMAIL [--perm ro|rw]   invite a user
  folder invitations               invitations waiting for you
  folder accept INV_ID             accept an invitation
  folder clone NAME TARGET [--cloneable]   copy a cloneable folder, waits until done
  folder delete NAME               move a folder to the trash
  image load FOLDER PATH [--agent ID]...
                                   load a docker save archive uploaded to a folder onto the Docker engines
                                   (superadmin), waits until done
  service create NAME --model FOLDER [--mount /home/work/model] [--replicas N] [--image python]
                      [--startup-command CMD] [--definition-path FILE] [--public] [--cpu N] [--mem SIZE] [--env K=V]...
  service list | info ID | errors ID | clear-errors ID | delete ID
  service scale ID COUNT           set the number of sessions
  service token ID [--duration 30d]   a token for the service's endpoint
  request METHOD PATH [JSON]       any signed request; prints the JSON answer
  backup FILE                      a backup of the whole database from the running manager (superadmin)
  restore FILE [--data-dir DIR]    restore a backup into a stopped Berth's empty database
                                   (BERTH_DATA_DIR, or the empty PostgreSQL database of BERTH_DATABASE_URL)

Environment: BERTH_ENDPOINT (default http://127.0.0.1:8081), BERTH_ACCESS_KEY, BERTH_SECRET_KEY,
BERTH_PASSWORD (for login), BERTH_CLI_CONFIG (where login saves the keypair), BERTH_KEY_DIR (where
"berth ssh" keeps session keys, default ~/.berth).`;

const COMMANDS: Record<string, Action> = {
  login, logout, whoami, version, config, session, events, ssh, folder, image, service, backup, restore,
  app: appForward,
  request: async ([method, requestPath, body]) => {
    if (!method || !requestPath) throw new UsageError('request needs METHOD and PATH');
    const { signedClient } = await import('./credentials');
    return signedClient().call(method.toUpperCase(), requestPath, body ? { rawBody: body } : {});
  },
};

const HELP = [undefined, 'help', '--help', '-h'];

function run(argv: string[]): Promise<unknown> {
  if (HELP.includes(argv[0])) {
    console.log(USAGE);
    return Promise.resolve(undefined);
  }
  return dispatch('command', COMMANDS, argv);
}

run(process.argv.slice(2))
  .then((result) => {
    if (result !== undefined) console.log(JSON.stringify(result, null, 2));
    process.exit(process.exitCode ?? 0);
  })
  .catch((err: unknown) => {
    if (err instanceof ApiError) console.error(`error: ${err.status} ${err.problem.title ?? ''} — ${err.problem.detail ?? ''}`);
    else if (err instanceof UsageError) console.error(`error: ${err.message}\n\n${USAGE}`);
    else console.error(`error: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(err instanceof UsageError ? 2 : 1);
  });
