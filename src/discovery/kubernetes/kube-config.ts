/**
 * Where the pod watcher finds its API server and credentials, in kube-rs's `Config::infer`
 * order, which SMG uses: `$KUBECONFIG`, else `~/.kube/config`, else the pod's service account
 * (in-cluster: `KUBERNETES_SERVICE_HOST`/`_PORT`, the mounted token and CA).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { KubeClient } from './kube-client.js';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * The default configuration. Throws when there is none: client-node would otherwise fall back
 * to an unauthenticated `http://localhost:8080` and discovery would fail on every attempt.
 */
export function loadKubeConfig(client: KubeClient): KubeConfig {
  const kubeconfig = process.env.KUBECONFIG;
  const found =
    (kubeconfig !== undefined && kubeconfig !== '') ||
    existsSync(join(homedir(), '.kube', 'config')) ||
    existsSync(SERVICE_ACCOUNT_TOKEN);
  if (!found) {
    throw new Error(
      `--service-discovery: no Kubernetes configuration (no $KUBECONFIG, no ~/.kube/config, and no service account token at ${SERVICE_ACCOUNT_TOKEN})`,
    );
  }
  const config = new client.KubeConfig();
  config.loadFromDefault();
  return config;
}
