import { describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';

/**
 * Issue 42 item 14: a new ad and a new landing page start in the client's brand colours (and a page
 * with its logo), not black and white; colours given in the request win.
 */
describe('new ads and landing pages start branded', async () => {
  const app = await createTestApp();
  const branded = await makeClient(app, 'Branded');
  const plain = await makeClient(app, 'Plain');
  const { browser: owner } = await signedIn(app, { [branded]: 'purple_owner', [plain]: 'purple_owner' });
  const brand = { background: '#111827', text: '#ffffff', accent: '#f97316', primary: '#f97316' };
  const logo = 'https://cdn.example.com/logo.png';
  const saved = await owner.put(
    `/v1/rest/client/${branded}/settings`,
    { colors: brand, logo_url: logo },
    { clientId: branded },
  );

  it('POST /v1/rest/content with a name only: the brand colours', async () => {
    expect(saved.statusCode, saved.body).toBe(200);
    const res = await owner.post('/v1/rest/content', { name: 'New ad' }, { clientId: branded });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().colors).toEqual(brand);
  });

  it('POST …/landing_page with a name only: the brand colours and logo', async () => {
    const res = await owner.post(
      `/v1/rest/client/${branded}/landing_page`,
      { name: 'New page' },
      { clientId: branded },
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ colors: brand, logo_url: logo });
  });

  it('colours and a logo given in the request are kept; a client without a brand gets the defaults', async () => {
    const own = { background: '#ffffff', text: '#0b3d91', accent: '#ffb400' };
    const ad = await owner.post('/v1/rest/content', { name: 'Own', colors: own }, { clientId: branded });
    expect(ad.json().colors).toEqual(own);
    const page = await owner.post(
      `/v1/rest/client/${branded}/landing_page`,
      { name: 'Own', logo_url: '' },
      { clientId: branded },
    );
    expect(page.json()).toMatchObject({ colors: brand, logo_url: '' });
    const bare = await owner.post('/v1/rest/content', { name: 'Plain' }, { clientId: plain });
    expect(bare.json().colors).toEqual({ background: '#ffffff', text: '#000000', accent: '#000000' });
  });

  it('422 naming the field for a bad colour; 403 for a role without content.write or a foreign client', async () => {
    const bad = await owner.post(
      '/v1/rest/content',
      { colors: { background: 'red' } },
      { clientId: branded },
    );
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toMatch(/^body\.colors/);
    const { browser: sdr } = await signedIn(app, { [branded]: 'yellow_sdr' });
    expect((await sdr.post('/v1/rest/content', { name: 'x' }, { clientId: branded })).statusCode).toBe(403);
    const { browser: stranger } = await signedIn(app, { [plain]: 'purple_owner' });
    expect((await stranger.post('/v1/rest/content', { name: 'x' }, { clientId: branded })).statusCode).toBe(
      403,
    );
  });
});
