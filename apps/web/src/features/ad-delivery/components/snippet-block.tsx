import { useState } from 'react';
import { Button, Code, CopyButton, Group, List, SegmentedControl, Stack, Text } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import type { ShownSnippet } from './snippet-howto.ts';

/**
 * The snippet in the platform's merge-field syntax, what to do with it in the template editor, and
 * the plain-text line for plain-text e-mails; each with a Copy button. Salesforce has two editors
 * (Lightning and Classic), picked above the code.
 */
export function SnippetBlock({
  snippet,
  platform,
  howTo,
}: {
  snippet: ShownSnippet;
  platform: string;
  howTo: string[];
}) {
  const [picked, setPicked] = useState(snippet.variants[0]?.id ?? '');
  const variant = snippet.variants.find((v) => v.id === picked) ?? snippet.variants[0];
  if (!variant) return null;
  return (
    <Stack gap="sm">
      <List type="ordered" size="sm" spacing={4}>
        {howTo.map((step) => (
          <List.Item key={step}>{step}</List.Item>
        ))}
      </List>
      {snippet.variants.length > 1 && (
        <SegmentedControl
          size="xs"
          aria-label="Template editor"
          value={variant.id}
          onChange={setPicked}
          data={snippet.variants.map((v) => ({ value: v.id, label: v.editor }))}
        />
      )}
      <Stack gap={6}>
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Text size="sm" fw={600}>
            Snippet for {platform}
            {snippet.variants.length > 1 ? ` (${variant.editor})` : ''}
          </Text>
          <CopyText value={variant.html} label="Copy snippet" copiedLabel="Snippet copied" />
        </Group>
        {/* The HTML is one line (editors keep it as it is); shown wrapped so all of it can be read. */}
        <Code
          block
          aria-label="E-mail snippet"
          style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', fontSize: 12 }}
        >
          {variant.html}
        </Code>
      </Stack>
      <Stack gap={6}>
        <Group justify="space-between" gap="xs" wrap="wrap">
          <Text size="sm" fw={600}>
            Plain-text e-mails
          </Text>
          <CopyText value={variant.text} label="Copy text line" copiedLabel="Text line copied" />
        </Group>
        <Code
          block
          aria-label="Plain-text line"
          style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all', fontSize: 12 }}
        >
          {variant.text}
        </Code>
      </Stack>
      {!snippet.verified && (
        <Text size="xs" c="dimmed">
          {platform} does not document how a custom field is written in a template. If the test from{' '}
          {platform} shows the tags instead of the ad, insert the same two fields from its own variables menu.
        </Text>
      )}
    </Stack>
  );
}

function CopyText({ value, label, copiedLabel }: { value: string; label: string; copiedLabel: string }) {
  return (
    <CopyButton value={value}>
      {({ copied, copy }) => (
        <Button
          size="xs"
          variant={copied ? 'light' : 'default'}
          color={copied ? 'teal' : undefined}
          leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
          onClick={copy}
        >
          {copied ? copiedLabel : label}
        </Button>
      )}
    </CopyButton>
  );
}
