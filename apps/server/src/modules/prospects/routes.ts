import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  prospectIdParams,
  prospectListQuery,
  prospectListReply,
  prospectSchema,
} from '@rally/shared/schemas/prospects';
import { authOf, tenantOf } from '../../lib/access.ts';
import { httpError } from '../../lib/errors.ts';
import { getProspect, listProspects } from './service.ts';

/** The prospects list and one prospect, under /sc (issue 7 "Prospects"; SPEC.md §3 "Prospect"). */
export const prospectRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app;
  const { publicUrl } = app.config;

  app.get(
    '/prospects',
    {
      config: { access: 'member' },
      schema: {
        tags: ['prospects'],
        summary: "The client's prospects: searched, filtered, sorted, a page at a time",
        description:
          'One row per prospect with every cadence entry (SPEC.md §3 "Prospect"). `search` matches ' +
          'part of the name, e-mail, title or company name (case-insensitive). Filters combine with ' +
          'AND; `cadence_id`, `sales_rep_id`, `mine` and `super` apply to the same cadence entry, `active` ' +
          "to the prospect. `mine=true` keeps entries of the sales reps whose e-mail is the signed-in user's " +
          '(none when no rep has it). `sort` is name, company, email, title, super_date (the latest super_date of ' +
          "the prospect's matching entries; prospects never super follow, by name) or impressions " +
          '(its matching entry with the most impressions); blanks sort last. Keyset paging: pass ' +
          '`next_cursor` as `cursor` for the next page (the same sort, order, search and filters); it ' +
          'is null on the last page. Every page costs the same however deep. Each cadence entry carries ' +
          'its ad tag (`ad_tag_url`, the 300x250 ad; each load counts an impression) and click tag ' +
          "(`click_url`; counts a click and redirects to the landing page): they hold the target's " +
          'secret token, so anyone with them can count engagement.',
        querystring: prospectListQuery,
        response: { 200: prospectListReply },
      },
    },
    async (request) =>
      listProspects(db, tenantOf(request).clientId, request.query, publicUrl, authOf(request).user.email),
  );

  app.get(
    '/prospects/:id',
    {
      config: { access: 'member' },
      schema: {
        tags: ['prospects'],
        summary: 'One prospect with each cadence entry (assignee, engagements, impressions, super_date)',
        description:
          'SPEC.md §3 "Prospect". Each cadence entry carries its ad tag (`ad_tag_url`: ' +
          "`{PUBLIC_URL}/t/{token}/ad/300x250.png`, the ad of the target's current day; each load " +
          'counts an impression) and click tag (`click_url`: `{PUBLIC_URL}/t/{token}/c`; counts a ' +
          'click and redirects to the landing page), to paste into an e-mail, a signature or an ad ' +
          "network. They hold the target's secret token: anyone with them can count engagement.",
        params: prospectIdParams,
        response: { 200: prospectSchema },
      },
    },
    async (request) => {
      const found = await getProspect(db, tenantOf(request).clientId, request.params.id, publicUrl);
      if (!found) throw httpError(404, 'Prospect not found.');
      return found;
    },
  );
};
