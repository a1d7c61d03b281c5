import { startEgressProxy, type EgressProxy } from './proxy.js';
import { startAgentService, type AgentService } from './service.js';
import { makeTestCertificates, startTlsFront, type TestCertificates } from './tls.js';

/** The public https name the service is reached under. */
export const PUBLIC_NAME = 'workflows.test';

export interface PublicNameService {
  service: AgentService;
  certificates: TestCertificates;
  proxy: EgressProxy;
  close(): Promise<void>;
}

/**
 * The service as a deployed one is reached: its PUBLIC_BASE_URL is https://workflows.test/v1, a
 * TLS front with a throwaway authority's certificate relays to it, and the CLIs' proxy sends that
 * name to the front (and refuses everything but loopback).
 */
export async function startPublicNameService(): Promise<PublicNameService> {
  const service = await startAgentService({ publicBaseUrl: () => `https://${PUBLIC_NAME}/v1` });
  const certificates = await makeTestCertificates([PUBLIC_NAME]);
  const front = await startTlsFront(certificates, { host: '127.0.0.1', port: Number(new URL(service.origin).port) });
  const proxy = await startEgressProxy({ [PUBLIC_NAME]: { host: '127.0.0.1', port: front.port } });
  return {
    service,
    certificates,
    proxy,
    async close() {
      await proxy.close();
      await front.close();
      certificates.remove();
      await service.close();
    },
  };
}
