import { useState } from 'react';
import { Box, Button, FileButton, Group, Image, Input, Stack, Text } from '@mantine/core';
import { IconPhoto, IconTrash, IconUpload } from '@tabler/icons-react';
import {
  UPLOAD_CONTENT_TYPES,
  UPLOAD_DIMENSION_LIMITS,
  UPLOAD_MAX_BYTES,
} from '@rally/shared/schemas/content';
import type { UploadKind } from '@rally/shared/schemas/content';
import { ApiError } from '../../../lib/api-client.ts';
import { useUploadImage } from '../api/upload-image.ts';

const MEGABYTES = UPLOAD_MAX_BYTES / (1024 * 1024);

/**
 * Why an upload was refused, as one sentence naming the file: the server's 422 says what is wrong
 * with the bytes ('is not a PNG, JPEG, GIF or WebP image', 'is 8x8 pixels; a logo must be…').
 */
export function uploadErrorMessage(error: unknown, fileName: string): string {
  if (error instanceof ApiError) {
    if (error.status === 422) {
      const first = (error.data as { errors?: { message?: unknown }[] } | null)?.errors?.[0]?.message;
      const reason = typeof first === 'string' ? first : error.message;
      return `“${fileName}” was not uploaded: it ${reason.replace(/\.$/, '')}.`;
    }
    if (error.status < 500) return error.message;
  }
  return `“${fileName}” was not uploaded: something went wrong. Please try again.`;
}

export type ImageUploadProps = {
  clientId: string;
  kind: UploadKind;
  label: string;
  description?: string;
  /** The image's URL (one of our /files/{id} or an http(s) address), or ''. */
  value: string;
  onChange: (url: string) => void;
  disabled?: boolean;
  /** How the picture is shown beside the buttons. */
  shape?: 'square' | 'circle' | 'wide';
  error?: string;
};

/** Upload an image (checked by its bytes on the server), see it, replace or remove it. */
export function ImageUpload({
  clientId,
  kind,
  label,
  description,
  value,
  onChange,
  disabled,
  shape = 'square',
  error,
}: ImageUploadProps) {
  const upload = useUploadImage();
  const [refusal, setRefusal] = useState<string | null>(null);
  const limits = UPLOAD_DIMENSION_LIMITS[kind];
  const size = { width: shape === 'wide' ? 160 : 72, height: 72 };

  const pick = (file: File | null) => {
    if (!file) return;
    setRefusal(null);
    if (file.size > UPLOAD_MAX_BYTES) {
      setRefusal(
        `“${file.name}” was not uploaded: it is larger than ${MEGABYTES} MB; upload a smaller image.`,
      );
      return;
    }
    upload.mutate(
      { clientId, kind, file },
      {
        onSuccess: (u) => onChange(u.url),
        onError: (err) => setRefusal(uploadErrorMessage(err, file.name)),
      },
    );
  };

  const id = `upload-${kind}-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <Input.Wrapper
      label={label}
      description={
        description ??
        `PNG, JPEG, GIF or WebP, at least ${limits.minWidth}×${limits.minHeight}, up to ${MEGABYTES} MB.`
      }
      error={refusal ?? error}
      id={id}
      errorProps={{ role: 'alert' }}
    >
      <Group gap="md" mt={6} wrap="nowrap" align="center">
        <Box
          w={size.width}
          h={size.height}
          bg="gray.0"
          bd="1px solid var(--mantine-color-gray-3)"
          style={{
            borderRadius: shape === 'circle' ? '50%' : 'var(--mantine-radius-md)',
            overflow: 'hidden',
            flex: 'none',
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'center',
          }}
        >
          {value ? (
            <Image src={value} alt={label} w="100%" h="100%" fit={shape === 'circle' ? 'cover' : 'contain'} />
          ) : (
            <IconPhoto size={24} stroke={1.5} color="var(--mantine-color-gray-5)" aria-hidden />
          )}
        </Box>
        <Stack gap={6}>
          {!disabled && (
            <Group gap="xs">
              <FileButton accept={UPLOAD_CONTENT_TYPES.join(',')} onChange={pick} disabled={disabled}>
                {(props) => (
                  <Button
                    {...props}
                    size="xs"
                    variant="light"
                    leftSection={<IconUpload size={14} />}
                    loading={upload.isPending}
                    disabled={disabled}
                    aria-label={`Upload ${label.toLowerCase()}`}
                  >
                    {value ? 'Replace' : 'Upload'}
                  </Button>
                )}
              </FileButton>
              {value && (
                <Button
                  size="xs"
                  variant="subtle"
                  color="gray"
                  leftSection={<IconTrash size={14} />}
                  onClick={() => {
                    setRefusal(null);
                    onChange('');
                  }}
                  disabled={disabled || upload.isPending}
                  aria-label={`Remove ${label.toLowerCase()}`}
                >
                  Remove
                </Button>
              )}
            </Group>
          )}
          {!value && (
            <Text size="xs" c="dimmed">
              No image yet
            </Text>
          )}
        </Stack>
      </Group>
    </Input.Wrapper>
  );
}
