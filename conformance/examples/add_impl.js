// A Relax implementation in JavaScript (Node.js) speaking the conformance suite's subprocess protocol
// (conformance/FORMAT.md, section 13). It runs `y = R.add(a, b)` on two static float32 tensors of one
// shape and declares every other program unsupported; the guide docs/guides/adapter-in-another-language.md
// explains it part by part.
//
//     relax-conformance run --impl cmd:"node conformance/examples/add_impl.js" --filter "op_elementwise/add*"
const fs = require("fs");
const readline = require("readline");

// --- npz: a zip of stored (uncompressed) .npy members --------------------------------------------
const CRC = new Int32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});
const crc32 = (buf) => {
  let c = -1;
  for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
};

function readNpz(path) {
  const buf = fs.readFileSync(path), out = {};
  let p = 0;
  while (buf.readUInt32LE(p) === 0x04034b50) {           // local file header
    if (buf.readUInt16LE(p + 8) !== 0) throw new Error("compressed npz member");
    const size = buf.readUInt32LE(p + 18), nameLen = buf.readUInt16LE(p + 26), extra = buf.readUInt16LE(p + 28);
    const name = buf.toString("utf8", p + 30, p + 30 + nameLen).replace(/\.npy$/, "");
    const data = buf.subarray(p + 30 + nameLen + extra, p + 30 + nameLen + extra + size);
    out[name] = readNpy(data);
    p += 30 + nameLen + extra + size;
  }
  return out;
}

function readNpy(b) {                                      // format 1.0: magic, version, header, data
  const hlen = b.readUInt16LE(8), header = b.toString("latin1", 10, 10 + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(",").filter((s) => s.trim()).map(Number);
  if (descr !== "<f4" || /'fortran_order':\s*True/.test(header)) throw new Error(`unsupported array ${descr}`);
  const raw = b.subarray(10 + hlen);
  return { shape, data: new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length)) };
}

function npy({ shape, data }) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(", ")}${shape.length === 1 ? "," : ""}), }`;
  header += " ".repeat(64 - ((10 + header.length + 1) % 64)) + "\n";
  const head = Buffer.alloc(10);
  Buffer.from("\x93NUMPY", "latin1").copy(head);
  head[6] = 1; head[7] = 0; head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, "latin1"), Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

function writeNpz(path, arrays) {
  const locals = [], centrals = [];
  let offset = 0;
  for (const [key, arr] of Object.entries(arrays)) {
    const name = Buffer.from(key + ".npy"), body = npy(arr), crc = crc32(body);
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0); h.writeUInt16LE(20, 4); h.writeUInt32LE(crc, 14);
    h.writeUInt32LE(body.length, 18); h.writeUInt32LE(body.length, 22); h.writeUInt16LE(name.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0); c.writeUInt16LE(20, 4); c.writeUInt16LE(20, 6); c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(body.length, 20); c.writeUInt32LE(body.length, 24); c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    locals.push(h, name, body); centrals.push(c, name);
    offset += 30 + name.length + body.length;
  }
  const central = Buffer.concat(centrals), end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(centrals.length / 2, 8); end.writeUInt16LE(centrals.length / 2, 10);
  end.writeUInt32LE(central.length, 12); end.writeUInt32LE(offset, 16);
  fs.writeFileSync(path, Buffer.concat([...locals, central, end]));
}

// --- the implementation ----------------------------------------------------------------------------
const PROGRAM = /def main\(a: R\.Tensor\(\(([\d, ]+)\), "float32"\), b: R\.Tensor\(\(\1\), "float32"\)\)[^:]*:\s*y = R\.add\(a, b\)\s*return y\s*$/;
const modules = new Map();
let next = 0;

function handle(req) {
  switch (req.op) {
    case "hello":
      return { ok: true, protocol: 1, name: "add_impl.js 0.1", unsupported_features: [] };
    case "load": {
      if (!PROGRAM.test(req.text)) return { ok: false, unsupported: { feature: "program", message: "only y = R.add(a, b)" } };
      const h = `h${++next}`;
      modules.set(h, true);
      return { ok: true, handle: h };
    }
    case "run": {
      const args = readNpz(req.args_file), [a, b] = req.args.map((s) => args[s.key]);
      const data = a.data.map((x, i) => Math.fround(x + b.data[i]));
      writeNpz(req.out_file, { r: { shape: a.shape, data } });
      return { ok: true, result: { kind: "tensor", key: "r" } };
    }
    case "release":
      modules.delete(req.handle);
      return { ok: true };
    default:
      return { ok: false, internal: `unknown request ${req.op}` };
  }
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const req = JSON.parse(line);
  if (req.op === "quit") process.exit(0);
  let reply;
  try { reply = handle(req); } catch (e) { reply = { ok: false, internal: String(e) }; }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
