import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** A random URL-safe token (256 bits by default). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** How tokens are stored: only their SHA-256, so a database leak does not leak sign-in links or sessions. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function hmac(secret: string, data: string): string {
  return createHmac('sha256', secret).update(data).digest('base64url');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Encrypts secrets at rest (OAuth tokens, TOTP secrets, SSO client secrets) with AES-256-GCM, under
 * a key derived from APP_SECRET. Output: `v1.<iv>.<tag>.<ciphertext>`, base64url parts. `purpose`
 * derives a separate key, so what is sealed for one use (a sign-up link) never opens as another.
 */
export function createSecretBox(appSecret: string, purpose = 'secrets-at-rest-v1') {
  const key = Buffer.from(hkdfSync('sha256', appSecret, 'rally', purpose, 32));
  return {
    encrypt(plain: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        data.toString('base64url'),
      ].join('.');
    },
    decrypt(sealed: string): string {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || data === undefined)
        throw new Error('Unrecognised secret format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;
