import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type * as S3Sdk from '@aws-sdk/client-s3';
import type { S3Config } from '../config/env.ts';
import type { BlobStore } from './blob-store-port.ts';
import { streamToFile } from './blob-store-file.ts';

const gone = (err: unknown) => {
  const name = (err as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound';
};

/** Uploads in S3-compatible storage (S3_BUCKET…): images and CSV imports alike. */
export function s3Store(config: S3Config): BlobStore {
  // The SDK loads at the first upload or read, not at start (about 0.4 s and 30 MiB that an
  // install on local storage never needs: bench/README.md "Embedded mode").
  let ready: Promise<{ client: S3Sdk.S3Client; sdk: typeof S3Sdk }> | undefined;
  const s3 = () =>
    (ready ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: config.region,
        ...(config.endpoint ? { endpoint: config.endpoint, forcePathStyle: true } : {}),
        ...(config.accessKeyId && config.secretAccessKey
          ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } }
          : {}),
      }),
    })));
  const Bucket = config.bucket;
  const object = async (key: string) => {
    const { client, sdk } = await s3();
    try {
      return await client.send(new sdk.GetObjectCommand({ Bucket, Key: key }));
    } catch (err) {
      if (gone(err)) return null;
      throw err;
    }
  };
  return {
    kind: 's3',
    async put(key, bytes, contentType) {
      const { client, sdk } = await s3();
      await client.send(
        new sdk.PutObjectCommand({
          Bucket,
          Key: key,
          Body: bytes,
          ContentType: contentType,
          CacheControl: 'public, max-age=31536000, immutable',
        }),
      );
    },
    async putFile(key, filePath, contentType) {
      // A stream body needs its length given (a single PUT; S3 takes up to 5 GB so).
      const { size } = await stat(filePath);
      const { client, sdk } = await s3();
      await client.send(
        new sdk.PutObjectCommand({
          Bucket,
          Key: key,
          Body: createReadStream(filePath),
          ContentLength: size,
          ContentType: contentType,
        }),
      );
    },
    async get(key) {
      const out = await object(key);
      if (!out?.Body) return null;
      return Buffer.from(await out.Body.transformToByteArray());
    },
    async toFile(key, filePath) {
      const out = await object(key);
      if (!out?.Body) return false;
      await streamToFile(out.Body as Readable, filePath);
      return true;
    },
    async delete(key) {
      const { client, sdk } = await s3();
      await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: key }));
    },
  };
}
