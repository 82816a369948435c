import { SimpleGrid } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { ImageUpload } from './image-upload.tsx';

/** The fields of a form that hold the brand's images. */
export type LogoFaviconValues = { logo_url: string; favicon_url: string };

/**
 * The logo and favicon, side by side. With `brandChecks` (for those who may set brand settings)
 * the server checks them as a logo and a favicon; without, as any image.
 */
export function LogoFaviconFields({
  clientId,
  form,
  disabled,
  brandChecks = true,
}: {
  clientId: string;
  form: UseFormReturnType<LogoFaviconValues>;
  disabled: boolean;
  brandChecks?: boolean;
}) {
  return (
    <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
      <ImageUpload
        clientId={clientId}
        kind={brandChecks ? 'logo' : 'image'}
        label="Logo"
        shape="wide"
        value={form.values.logo_url}
        onChange={(url) => form.setFieldValue('logo_url', url)}
        disabled={disabled}
        error={form.errors.logo_url as string | undefined}
      />
      <ImageUpload
        clientId={clientId}
        kind={brandChecks ? 'favicon' : 'image'}
        label="Favicon"
        value={form.values.favicon_url}
        onChange={(url) => form.setFieldValue('favicon_url', url)}
        disabled={disabled}
        error={form.errors.favicon_url as string | undefined}
      />
    </SimpleGrid>
  );
}
