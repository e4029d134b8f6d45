// The errors of protobuf decoding and encoding. A decode error names the
// field path where the bytes went wrong, so the apiserver can answer with a
// 400 BadRequest Status that says what is wrong without a stack trace.

/** A protobuf body that cannot be decoded: bad magic, truncated or malformed bytes, wrong wire type, unknown kind. */
export class ProtobufDecodeError extends Error {
  override name = 'ProtobufDecodeError';

  constructor(
    /** What is wrong, without the path. */
    readonly reason: string,
    /** Where, e.g. "Deployment.spec.template.spec.containers[0].ports[1].containerPort"; '' for the envelope. */
    readonly path = '',
  ) {
    super(path ? `${path}: ${reason}` : reason);
  }
}

/** An object that cannot be written as protobuf: unknown kind, or a value of the wrong JSON type. */
export class ProtobufEncodeError extends Error {
  override name = 'ProtobufEncodeError';

  constructor(
    readonly reason: string,
    readonly path = '',
  ) {
    super(path ? `${path}: ${reason}` : reason);
  }
}
