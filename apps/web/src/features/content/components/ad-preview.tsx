import { Box, Group, Loader, Paper, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { AD_SIZES, adSizeDimensions } from '@rally/shared/schemas/content';
import type { AdRenderBody, AdSize } from '@rally/shared/schemas/content';
import { useAdPreview } from '../api/render-ad-preview.ts';
import classes from './ad-preview.module.css';

const AREA: Record<AdSize, string> = {
  '1080x1080': 'square',
  '1200x628': 'landscape',
  '300x250': 'rectangle',
  '728x90': 'leaderboard',
};

function SizePreview({
  clientId,
  size,
  body,
}: {
  clientId: string;
  size: AdSize;
  body: AdRenderBody | null;
}) {
  const preview = useAdPreview(clientId, size, body);
  const url = preview.data;
  const { width, height } = adSizeDimensions(size);
  const label = `${width} × ${height}`;
  return (
    <figure className={classes.figure} style={{ gridArea: AREA[size] }}>
      <Box
        className={classes.frame}
        style={{ aspectRatio: `${width} / ${height}`, maxWidth: width }}
        aria-busy={preview.isFetching}
      >
        {url && (
          <img src={url} alt={`Ad preview ${size}`} className={classes.image} width={width} height={height} />
        )}
        {preview.isFetching && (
          <div className={classes.busy}>
            <Loader size="xs" />
          </div>
        )}
        {!url && preview.isError && (
          <Group gap={6} className={classes.failed} role="alert">
            <IconAlertTriangle size={16} />
            <Text size="xs">Preview failed</Text>
          </Group>
        )}
      </Box>
      <figcaption className={classes.caption}>
        <Text size="xs" c="dimmed">
          {label}
        </Text>
      </figcaption>
    </figure>
  );
}

/**
 * The ad at its four sizes (SPEC.md §3 "Ad sizes") side by side, each scaled to fit, rendered by the
 * server from the unsaved fields (`body`; null keeps the last good preview while a field is wrong).
 */
export function AdPreview({ clientId, body }: { clientId: string; body: AdRenderBody | null }) {
  return (
    <Paper withBorder radius="md" p="md" bg="gray.0">
      <div className={classes.grid} aria-label="Ad preview at four sizes" role="group">
        {AD_SIZES.map((size) => (
          <SizePreview key={size} clientId={clientId} size={size} body={body} />
        ))}
      </div>
    </Paper>
  );
}
