//! What request bodies share. Each body is a type beside its resource's
//! other shapes (`wire::SessionCreate`, …), read from the request's JSON
//! object by its `parse` (SPEC §7.3.1: a body that does not parse, or is
//! over 1 MB, is empty, so the first missing required member is named; an
//! unknown member is refused) and stated in the document by its schema.
//! What needs the server's state (the target wall, caps, the session's
//! turn) is checked by the handler after.

use utoipa::ToSchema;

/// The longest query or follow-up (SPEC §8).
pub const MAX_QUERY_CHARS: usize = 2000;
/// The longest `guidance` (SPEC §8).
pub const MAX_GUIDANCE_CHARS: usize = 2000;
/// The longest URL a body may name.
pub const MAX_URL_CHARS: usize = 2048;

/// `T`'s object, or any body that is not a JSON object, which counts as
/// empty (SPEC §7.3.1): the schema of a body whose members are all optional.
pub(crate) fn or_empty<T: ToSchema>() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{AnyOfBuilder, ObjectBuilder, SchemaType, Type};
    let not_object = ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([
            Type::Array,
            Type::String,
            Type::Number,
            Type::Boolean,
            Type::Null,
        ]))
        .description(Some("not an object: counts as an empty body"));
    AnyOfBuilder::new()
        .item(utoipa::openapi::Ref::from_schema_name(T::name()))
        .item(not_object)
        .into()
}

/// Declares `$body` as the body `$object` or any non-object (counted as empty).
macro_rules! or_empty_body {
    ($body:ident, $object:ident) => {
        pub struct $body;
        impl utoipa::PartialSchema for $body {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                $crate::wire::requests::or_empty::<$object>()
            }
        }
        impl utoipa::ToSchema for $body {
            fn schemas(
                out: &mut Vec<(
                    String,
                    utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
                )>,
            ) {
                out.push((
                    <$object as utoipa::ToSchema>::name().into_owned(),
                    <$object as utoipa::PartialSchema>::schema(),
                ));
            }
        }
    };
}

pub(crate) use or_empty_body;
