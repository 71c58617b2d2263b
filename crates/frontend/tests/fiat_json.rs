//! Every function in every file of ../shared/fiat-json parses completely and verifies.

use cryptopt_testkit as common;

#[test]
fn every_function_parses() {
    let Some(dir) = common::fiat_dir("every_function_parses") else {
        return;
    };
    let files = common::all_files(&dir);
    let total: usize = files.iter().map(|(_, fs)| fs.len()).sum();
    for (file, funcs) in &files {
        let names = cryptopt_frontend::fiat::function_names(
            &std::fs::read_to_string(dir.join(file)).unwrap(),
        )
        .unwrap();
        assert_eq!(names.len(), funcs.len(), "{file}");
        assert!(
            funcs.iter().any(|f| f.name.ends_with("_mul")),
            "{file} has no mul"
        );
        assert!(
            funcs.iter().any(|f| f.name.ends_with("_square")),
            "{file} has no square"
        );
    }
    eprintln!("parsed {total} functions from {} files", files.len());
    assert!(total >= 150, "only {total} functions parsed");
}
