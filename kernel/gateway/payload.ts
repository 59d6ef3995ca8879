/**
 * The connection info a launched kernel sends back to Enterprise Gateway, in
 * the form EG decrypts (its ResponseManager, payload version 1):
 *
 *   base64(JSON {"version": 1, "key": K, "conn_info": C})
 *   C = base64(AES-128-ECB(PKCS#7-padded JSON of the connection info, under a random 16-byte key))
 *   K = base64(RSA PKCS#1 v1.5 encryption of that key with the gateway's public key)
 *
 * sent over one TCP connection to the response address, which is then closed.
 */
import { KeyObject, constants, createCipheriv, publicEncrypt, randomBytes } from "crypto";
import { connect } from "net";

/** The payload version EG's launchers send (LAUNCHER_VERSION 1). */
export const kPayloadVersion = 1;

/** What the gateway learns about a launched kernel. */
export interface GatewayConnectionInfo {
  shell_port: number;
  iopub_port: number;
  stdin_port: number;
  control_port: number;
  hb_port: number;
  ip: string;
  key: string;
  transport: "tcp";
  signature_scheme: "hmac-sha256";
  kernel_name: string;
  /** Where the launcher listens for the gateway's signal and shutdown requests. */
  comm_port: number;
  pid: number;
  pgid: number;
  kernel_id: string;
}

/** Encrypts the connection info for the gateway that owns `publicKey`; returns the base64 payload. */
export function encryptConnectionInfo(info: GatewayConnectionInfo, publicKey: KeyObject): string {
  const aesKey = randomBytes(16);
  const cipher = createCipheriv("aes-128-ecb", aesKey, null); // PKCS#7 padding is the default
  const connInfo = Buffer.concat([cipher.update(JSON.stringify(info), "utf8"), cipher.final()]);
  const key = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_PADDING }, aesKey);
  const payload = { version: kPayloadVersion, key: key.toString("base64"), conn_info: connInfo.toString("base64") };
  return Buffer.from(JSON.stringify(payload), "utf8").toString("base64");
}

/**
 * Sends the payload to HOST:PORT and closes the connection; rejects with the
 * address and the reason when the gateway cannot be reached within `timeoutMs`.
 */
export function sendPayload(host: string, port: number, payload: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host, port });
    const fail = (why: string) => {
      sock.destroy();
      reject(new Error(`cannot send the connection info to the response address ${host}:${port}: ${why}`));
    };
    sock.setTimeout(timeoutMs, () => fail(`no connection after ${timeoutMs / 1000} s`));
    sock.once("error", (e: NodeJS.ErrnoException) => fail(e.code ? `${e.code} (${e.message})` : e.message));
    sock.once("connect", () => {
      sock.end(payload, () => { sock.setTimeout(0); resolve(); });
    });
  });
}
