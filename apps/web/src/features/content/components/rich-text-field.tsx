import '@mantine/tiptap/styles.css';
import { useEffect } from 'react';
import { Input, Menu } from '@mantine/core';
import { Link, RichTextEditor, useRichTextEditorContext } from '@mantine/tiptap';
import { IconBraces } from '@tabler/icons-react';
import { Extension, Mark, useEditor } from '@tiptap/react';
import { StarterKit } from '@tiptap/starter-kit';
import { tagMarkup } from '@rally/shared';
import { PERSONALISATION_TAGS } from '@rally/shared/schemas/content';
import classes from './rich-text-field.module.css';

declare module '@tiptap/core' {
  // eslint-disable-next-line @typescript-eslint/consistent-type-definitions -- TipTap declares commands by interface merging
  interface Commands<ReturnType> {
    textAlign: { setTextAlign: (alignment: string) => ReturnType };
  }
}

/**
 * Personalisation tags (SPEC.md §5: `<span data-id="…">`) kept as they are: without this mark the
 * editor would drop the span and the page would lose its tags on the first edit.
 */
const PersonalisationTag = Mark.create({
  name: 'personalisationTag',
  inclusive: false,
  addAttributes() {
    return {
      id: {
        default: null,
        parseHTML: (el) => el.getAttribute('data-id'),
        renderHTML: (attrs) => ({ 'data-id': attrs.id as string }),
      },
      // What renders without a value (issue 42); kept so an edit does not lose it.
      fallback: {
        default: null,
        parseHTML: (el) => el.getAttribute('data-fallback'),
        renderHTML: (attrs) => (attrs.fallback == null ? {} : { 'data-fallback': attrs.fallback as string }),
      },
    };
  },
  parseHTML() {
    return [{ tag: 'span[data-id]' }];
  },
  renderHTML({ HTMLAttributes }) {
    return ['span', HTMLAttributes, 0];
  },
});

const ALIGNABLE = ['heading', 'paragraph'];

/** Paragraph and heading alignment as `style="text-align: …"` (which the server's sanitiser keeps). */
const TextAlign = Extension.create({
  name: 'textAlign',
  addGlobalAttributes() {
    return [
      {
        types: ALIGNABLE,
        attributes: {
          textAlign: {
            default: null,
            parseHTML: (el) => el.style.textAlign || null,
            renderHTML: (attrs) =>
              attrs.textAlign && attrs.textAlign !== 'left'
                ? { style: `text-align: ${String(attrs.textAlign)}` }
                : {},
          },
        },
      },
    ];
  },
  addCommands() {
    return {
      setTextAlign:
        (alignment: string) =>
        ({ commands }) =>
          ALIGNABLE.map((type) => commands.updateAttributes(type, { textAlign: alignment })).some(Boolean),
    };
  },
});

/** TipTap's empty document is '<p></p>'; the API stores '' for no content. */
export const normaliseHtml = (html: string) => (html === '<p></p>' ? '' : html);

function TagControl() {
  return (
    <Menu position="bottom-end" withinPortal width={220}>
      <Menu.Target>
        <RichTextEditor.Control
          aria-label="Insert a personalisation tag"
          title="Insert a personalisation tag"
        >
          <IconBraces size={16} stroke={1.5} />
        </RichTextEditor.Control>
      </Menu.Target>
      <TagMenuItems />
    </Menu>
  );
}

function TagMenuItems() {
  const { editor } = useRichTextEditorContext();
  return (
    <Menu.Dropdown>
      <Menu.Label>Filled in for each prospect</Menu.Label>
      {PERSONALISATION_TAGS.map((t) => (
        <Menu.Item
          key={t.id}
          onClick={() =>
            editor
              ?.chain()
              .focus()
              .insertContent(`${tagMarkup(t.id, t.fallback)} `)
              .run()
          }
        >
          {t.label}
        </Menu.Item>
      ))}
    </Menu.Dropdown>
  );
}

/**
 * A rich-text field (TipTap with Mantine's toolbar). The HTML it produces is sanitised again by the
 * server before it is stored, so what the toolbar cannot make is dropped there too.
 */
export function RichTextField({
  label,
  description,
  value,
  onChange,
  disabled,
  error,
  minHeight = 120,
}: {
  label: string;
  description?: string;
  value: string;
  onChange: (html: string) => void;
  disabled?: boolean;
  error?: string;
  minHeight?: number;
}) {
  const editor = useEditor({
    extensions: [StarterKit.configure({ link: false }), Link, PersonalisationTag, TextAlign],
    content: value,
    editable: !disabled,
    shouldRerenderOnTransaction: true,
    // The editable area itself is the text box, so it carries the field's name.
    editorProps: { attributes: { role: 'textbox', 'aria-multiline': 'true', 'aria-label': label } },
    onUpdate: ({ editor: e }) => onChange(normaliseHtml(e.getHTML())),
  });

  // A value set from outside (a reset after saving, sanitised by the server) replaces the content.
  // An editor being torn down (the screen left, or the editor re-made) has no schema left to read.
  useEffect(() => {
    if (!editor || editor.isDestroyed || editor.isFocused) return;
    if (normaliseHtml(editor.getHTML()) !== value) editor.commands.setContent(value, { emitUpdate: false });
  }, [editor, value]);

  useEffect(() => {
    if (editor && !editor.isDestroyed) editor.setEditable(!disabled);
  }, [editor, disabled]);

  return (
    <Input.Wrapper label={label} description={description} error={error}>
      <RichTextEditor
        editor={editor}
        mt={6}
        className={classes.root}
        aria-label={label}
        data-disabled={disabled || undefined}
      >
        {!disabled && (
          <RichTextEditor.Toolbar>
            <RichTextEditor.ControlsGroup>
              <RichTextEditor.Bold />
              <RichTextEditor.Italic />
              <RichTextEditor.Underline />
              <RichTextEditor.Strikethrough />
              <RichTextEditor.ClearFormatting />
            </RichTextEditor.ControlsGroup>
            <RichTextEditor.ControlsGroup>
              <RichTextEditor.H1 />
              <RichTextEditor.H2 />
              <RichTextEditor.H3 />
            </RichTextEditor.ControlsGroup>
            <RichTextEditor.ControlsGroup>
              <RichTextEditor.BulletList />
              <RichTextEditor.OrderedList />
              <RichTextEditor.Blockquote />
            </RichTextEditor.ControlsGroup>
            <RichTextEditor.ControlsGroup>
              <RichTextEditor.Link />
              <RichTextEditor.Unlink />
            </RichTextEditor.ControlsGroup>
            <RichTextEditor.ControlsGroup>
              <RichTextEditor.AlignLeft />
              <RichTextEditor.AlignCenter />
              <RichTextEditor.AlignRight />
            </RichTextEditor.ControlsGroup>
            <RichTextEditor.ControlsGroup>
              <TagControl />
            </RichTextEditor.ControlsGroup>
          </RichTextEditor.Toolbar>
        )}
        <RichTextEditor.Content style={{ minHeight }} />
      </RichTextEditor>
    </Input.Wrapper>
  );
}
