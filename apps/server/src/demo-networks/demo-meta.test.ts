import { afterAll, describe, expect, it } from 'vitest';
import { startDemoMeta } from './index.ts';

describe('the demo’s Meta (in process, as long as npm start runs)', async () => {
  const networks = await startDemoMeta();
  afterAll(() => networks.close());

  it('keeps only its latest 100 requests, not one entry per request for ever', async () => {
    const { url, version } = networks.meta;
    for (let i = 0; i < 130; i++) await fetch(`${url}/${version}/act_${i}/campaigns`);
    expect(networks.meta.requests).toHaveLength(100);
    expect(networks.meta.requests.at(-1)?.path).toBe('/act_129/campaigns');
    expect(networks.meta.requests[0]?.path).toBe('/act_30/campaigns');
  });
});
