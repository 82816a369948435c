import type { UseFormReturnType } from '@mantine/form';
import type { Assignee } from '@rally/shared/schemas/content';
import { AssigneeFields, assigneeOfRep } from './assignee-fields.tsx';
import { ImageUpload } from './image-upload.tsx';

/** The fields of a form that name the rep an ad or landing page speaks for. */
export type SalesRepValues = { sdr_img_url: string; assignee: Assignee };

/**
 * The rep's photo and details. Picking one of the client's sales reps fills the details (the
 * website stays as typed) and, when the rep has one, the photo.
 */
export function SalesRepFields({
  clientId,
  form,
  disabled,
}: {
  clientId: string;
  form: UseFormReturnType<SalesRepValues>;
  disabled: boolean;
}) {
  return (
    <>
      <ImageUpload
        clientId={clientId}
        kind="photo"
        label="Rep photo"
        shape="circle"
        value={form.values.sdr_img_url}
        onChange={(url) => form.setFieldValue('sdr_img_url', url)}
        disabled={disabled}
        error={form.errors.sdr_img_url as string | undefined}
      />
      <AssigneeFields
        clientId={clientId}
        disabled={disabled}
        inputProps={(k) => form.getInputProps(`assignee.${k}`)}
        onPickRep={(rep) => {
          form.setFieldValue('assignee', assigneeOfRep(rep, form.values.assignee.website));
          if (rep.photo_url) form.setFieldValue('sdr_img_url', rep.photo_url);
        }}
      />
    </>
  );
}
