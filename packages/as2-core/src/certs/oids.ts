/** Object identifiers used by certificates, SignedData and PKCS#12, named as in their ASN.1 modules. */

// RFC 5652 §14 (CryptographicMessageSyntax2004)
export const id_data = "1.2.840.113549.1.7.1";
export const id_signedData = "1.2.840.113549.1.7.2";
export const id_encryptedData = "1.2.840.113549.1.7.6";
export const id_contentType = "1.2.840.113549.1.9.3";
export const id_messageDigest = "1.2.840.113549.1.9.4";
export const id_signingTime = "1.2.840.113549.1.9.5";
// RFC 6211 §2
export const id_aa_CMSAlgorithmProtection = "1.2.840.113549.1.9.52";

// RFC 8017 Appendix C (PKCS-1), RFC 4055, RFC 4056
export const rsaEncryption = "1.2.840.113549.1.1.1";
export const id_RSASSA_PSS = "1.2.840.113549.1.1.10";
export const id_RSAES_OAEP = "1.2.840.113549.1.1.7";
export const id_mgf1 = "1.2.840.113549.1.1.8";
export const id_pSpecified = "1.2.840.113549.1.1.9";
export const sha1WithRSAEncryption = "1.2.840.113549.1.1.5";
export const sha256WithRSAEncryption = "1.2.840.113549.1.1.11";
export const sha384WithRSAEncryption = "1.2.840.113549.1.1.12";
export const sha512WithRSAEncryption = "1.2.840.113549.1.1.13";
/** OIW sha1WithRSASignature: old Windows and Java senders still emit it. */
export const sha1WithRSASignature = "1.3.14.3.2.29";

// RFC 5480, RFC 8410
export const id_ecPublicKey = "1.2.840.10045.2.1";

// RFC 5280 §4.2.1.2
export const id_ce_subjectKeyIdentifier = "2.5.29.14";

// RFC 7292 Appendix D (PKCS-12), RFC 8018 (PKCS-5)
export const pkcs8ShroudedKeyBag = "1.2.840.113549.1.12.10.1.2";
export const keyBag = "1.2.840.113549.1.12.10.1.1";
export const certBag = "1.2.840.113549.1.12.10.1.3";
export const x509Certificate = "1.2.840.113549.1.9.22.1";
export const pbeWithSHAAnd128BitRC4 = "1.2.840.113549.1.12.1.1";
export const pbeWithSHAAnd40BitRC4 = "1.2.840.113549.1.12.1.2";
export const pbeWithSHAAnd3_KeyTripleDES_CBC = "1.2.840.113549.1.12.1.3";
export const pbeWithSHAAnd2_KeyTripleDES_CBC = "1.2.840.113549.1.12.1.4";
export const pbeWithSHAAnd128BitRC2_CBC = "1.2.840.113549.1.12.1.5";
export const pbewithSHAAnd40BitRC2_CBC = "1.2.840.113549.1.12.1.6";
export const id_PBES2 = "1.2.840.113549.1.5.13";
export const id_PBKDF2 = "1.2.840.113549.1.5.12";
export const id_hmacWithSHA1 = "1.2.840.113549.2.7";
export const id_hmacWithSHA256 = "1.2.840.113549.2.9";
export const id_hmacWithSHA384 = "1.2.840.113549.2.10";
export const id_hmacWithSHA512 = "1.2.840.113549.2.11";
export const aes128_CBC = "2.16.840.1.101.3.4.1.2";
export const aes192_CBC = "2.16.840.1.101.3.4.1.22";
export const aes256_CBC = "2.16.840.1.101.3.4.1.42";
export const des_EDE3_CBC = "1.2.840.113549.3.7";
