/**
 * A provider's SIP registrar, as small as RFC 3261 allows: answers each REGISTER on its UDP socket with
 * 200 OK (echoing Via, From, To with a tag, Call-ID, CSeq and the Contact with its expiry). A trunk's
 * outbound registration from the real Asterisk registers against it.
 */
export interface Registrar {
  address: string;
  port: number;
  /** REGISTERs received so far. */
  registers: number;
  stop(): void;
}

export async function startRegistrar(address: string): Promise<Registrar> {
  const state = { registers: 0 };
  const socket = await Bun.udpSocket({
    hostname: address,
    port: 0,
    socket: {
      data(sock, buf, port, from) {
        const text = buf.toString();
        if (!text.startsWith("REGISTER ")) return;
        state.registers++;
        const headers = text.split("\r\n\r\n")[0]?.split("\r\n").slice(1) ?? [];
        const all = (name: string) => headers.filter((h) => h.toLowerCase().startsWith(`${name.toLowerCase()}:`));
        const one = (name: string) => all(name)[0] ?? "";
        const to = one("To");
        const lines = [
          "SIP/2.0 200 OK",
          ...all("Via"),
          one("From"),
          to.includes(";tag=") ? to : `${to};tag=reg${state.registers}`,
          one("Call-ID"),
          one("CSeq"),
          `${one("Contact")};expires=120`,
          "Content-Length: 0",
          "",
          "",
        ];
        sock.send(lines.join("\r\n"), port, from);
      },
    },
  });
  return {
    address,
    port: socket.port,
    get registers() {
      return state.registers;
    },
    stop() {
      socket.close();
    },
  };
}
