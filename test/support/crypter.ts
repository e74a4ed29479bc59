// Passphrase secrets for the state file, in the spirit of the CLI's passphrase
// secrets manager: AES-256-GCM under a key derived from the passphrase (scrypt
// here, PBKDF2 in the CLI), a random salt kept next to the resources, and
// ciphertexts written as "v1:<nonce>:<ciphertext+tag>" in base64.

import * as crypto from "node:crypto";

export const DEFAULT_TEST_PASSPHRASE = "pulumi-svc engine stand-in test passphrase";
const CHECK_PLAINTEXT = "pulumi-svc-engine";

export interface SecretsProviderState {
  type: "passphrase";
  state: { salt: string; check: string };
}

export class Crypter {
  private constructor(private readonly key: Buffer) {}

  /** A new crypter with a fresh salt; `describe()` gives what to store. */
  static create(passphrase: string): { crypter: Crypter; provider: SecretsProviderState } {
    const salt = crypto.randomBytes(16);
    const crypter = new Crypter(deriveKey(passphrase, salt));
    const provider: SecretsProviderState = {
      type: "passphrase",
      state: { salt: salt.toString("base64"), check: crypter.encrypt(CHECK_PLAINTEXT) },
    };
    return { crypter, provider };
  }

  /** Reopens stored secrets; throws a clear error on a wrong passphrase. */
  static open(passphrase: string, provider: SecretsProviderState): Crypter {
    const crypter = new Crypter(deriveKey(passphrase, Buffer.from(provider.state.salt, "base64")));
    let ok = false;
    try {
      ok = crypter.decrypt(provider.state.check) === CHECK_PLAINTEXT;
    } catch {
      ok = false;
    }
    if (!ok) {
      throw new Error("incorrect passphrase for the state file's secrets (set PULUMI_CONFIG_PASSPHRASE)");
    }
    return crypter;
  }

  encrypt(plaintext: string): string {
    const nonce = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv("aes-256-gcm", this.key, nonce);
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return `v1:${nonce.toString("base64")}:${body.toString("base64")}`;
  }

  decrypt(ciphertext: string): string {
    const [version, nonceB64, bodyB64] = ciphertext.split(":");
    if (version !== "v1" || nonceB64 === undefined || bodyB64 === undefined) {
      throw new Error("unrecognised secret ciphertext in state");
    }
    const body = Buffer.from(bodyB64, "base64");
    const decipher = crypto.createDecipheriv("aes-256-gcm", this.key, Buffer.from(nonceB64, "base64"));
    decipher.setAuthTag(body.subarray(body.length - 16));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString("utf8");
  }
}

function deriveKey(passphrase: string, salt: Buffer): Buffer {
  return crypto.scryptSync(passphrase, salt, 32, { N: 1 << 14, r: 8, p: 1 });
}
