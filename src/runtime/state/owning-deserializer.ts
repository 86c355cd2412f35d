/**
 * `v8.deserialize` for state files. Node's deserializer returns each typed array as a view into
 * the buffer it reads (zero copy): a binary string value (Uint8Array) restored that way would keep
 * the whole state file alive as long as it lives in state. Here every Uint8Array gets a buffer of
 * its own; other typed arrays (the columns of a columnar table, decoded at once) stay views.
 */
import { DefaultDeserializer } from 'node:v8';

class OwningDeserializer extends DefaultDeserializer {
  _readHostObject(): unknown {
    const view = (DefaultDeserializer.prototype as unknown as { _readHostObject(this: DefaultDeserializer): unknown })._readHostObject.call(this);
    return view instanceof Uint8Array && view.constructor === Uint8Array && view.byteLength !== view.buffer.byteLength ? view.slice() : view;
  }
}

/** `v8.deserialize`, with Uint8Arrays owning their buffers. */
export function deserializeOwning(bytes: Uint8Array): unknown {
  const deserializer = new OwningDeserializer(bytes);
  deserializer.readHeader();
  return deserializer.readValue();
}
