/**
 * The parts of `@kubernetes/client-node` discovery uses, loaded only when `--service-discovery`
 * is given: the library takes most of a second to import, which every gateway process (and each
 * of `launch --workers N`) would otherwise pay at startup without ever watching a pod.
 */
import type * as ClientNode from '@kubernetes/client-node';

export type KubeClient = Pick<
  typeof ClientNode,
  'CoreV1Api' | 'KubeConfig' | 'Observable' | 'Watch'
>;

export function loadKubeClient(): Promise<KubeClient> {
  return import('@kubernetes/client-node');
}
