/** The Slurm cluster the test command started (scripts/slurm-cluster.mjs), as the tests of this folder see it. */
import { killSlurmNode, startSlurmNode, type SlurmTestNode } from '../../scripts/slurm-cluster.mjs';

export interface TestSlurmCluster {
  conf: string;
  nodes: SlurmTestNode[];
  /** A node crash: its slurmd and everything in its network namespace killed. */
  killNode(name: string): Promise<void>;
  startNode(name: string): Promise<void>;
}

export function slurmCluster(): TestSlurmCluster {
  const conf = process.env.BERTH_TEST_SLURM_CONF;
  if (!conf) throw new Error('BERTH_TEST_SLURM_CONF is not set: run through scripts/with-slurm.mjs or npm test');
  return {
    conf,
    nodes: JSON.parse(process.env.BERTH_TEST_SLURM_NODES ?? '[]') as SlurmTestNode[],
    async killNode(name) {
      killSlurmNode(name);
    },
    startNode: (name) => startSlurmNode(conf, name),
  };
}
