package org.binlogrelay.archive.objectstore;

/**
 * The S3 API calls {@link S3ObjectStore} makes, each with the IAM permission it needs, for error
 * messages. Immutable.
 */
enum S3Operation {
  HEAD_OBJECT("HeadObject", "s3:GetObject"),
  PUT_OBJECT("PutObject", "s3:PutObject"),
  CREATE_MULTIPART_UPLOAD("CreateMultipartUpload", "s3:PutObject"),
  UPLOAD_PART("UploadPart", "s3:PutObject"),
  LIST_PARTS("ListParts", "s3:ListMultipartUploadParts"),
  COMPLETE_MULTIPART_UPLOAD("CompleteMultipartUpload", "s3:PutObject"),
  ABORT_MULTIPART_UPLOAD("AbortMultipartUpload", "s3:AbortMultipartUpload"),
  LIST_MULTIPART_UPLOADS("ListMultipartUploads", "s3:ListBucketMultipartUploads"),
  GET_OBJECT("GetObject", "s3:GetObject"),
  LIST_OBJECTS("ListObjectsV2", "s3:ListBucket"),
  DELETE_OBJECT("DeleteObject", "s3:DeleteObject");

  /** Every permission the archive needs, for the IAM policy an operator writes. */
  static final String ALL_PERMISSIONS =
      "s3:PutObject, s3:GetObject, s3:ListBucket, s3:DeleteObject, s3:AbortMultipartUpload,"
          + " s3:ListMultipartUploadParts, s3:ListBucketMultipartUploads";

  private final String apiName;
  private final String permission;

  S3Operation(String apiName, String permission) {
    this.apiName = apiName;
    this.permission = permission;
  }

  /** The call's name in the S3 API reference. */
  String apiName() {
    return apiName;
  }

  /** The IAM action that allows the call. */
  String permission() {
    return permission;
  }

  /** Whether the call applies to the bucket (a listing) rather than one key. */
  boolean onBucket() {
    return this == LIST_OBJECTS || this == LIST_MULTIPART_UPLOADS;
  }
}
