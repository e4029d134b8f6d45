// Kubernetes protobuf bodies (application/vnd.kubernetes.protobuf): decode
// what kubectl sends into kube's JSON form, and encode JSON objects back.
export {
  decodeKubeProtobuf,
  hasKubeProtobufMagic,
  KUBE_PROTOBUF_CONTENT_TYPE,
  KUBE_PROTOBUF_MAGIC,
  type DecodedKubeObject,
} from './decode.ts';
export { encodeKubeProtobuf } from './encode.ts';
export { ProtobufDecodeError, ProtobufEncodeError } from './errors.ts';
